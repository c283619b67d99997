import { InvalidArgumentError } from '@cairn/core'
import type pg from 'pg'
import { checkSchemaName } from '../identifiers.ts'
import { POOL_SIZE, storeInteger, WAIT_MS } from '../option_numbers.ts'

export interface PostgresStoreOptions {
  /** `postgres://user@host:port/database`; or give `pool`. */
  connectionString?: string
  /**
   * An existing pool to use instead of creating one. The store does not end it on close(),
   * and leaves its settings alone: give it an 'error' listener (an idle client's error
   * otherwise crashes the process) and any statement timeout yourself.
   */
  pool?: pg.Pool
  /** Schema holding Cairn's tables, created on open() if missing. Default `public`. */
  schema?: string
  /** Connections in the pool the store creates. Default 10. */
  max?: number
  /** Server-side statement_timeout of the store's own connections; default: the server's. */
  statementTimeoutMs?: number
  /**
   * `idle_in_transaction_session_timeout` of the store's own connections: the server ends a
   * connection idle inside a transaction that long, rolling it back. The store's transactions
   * idle only between their own statements, so such a connection belongs to a frozen or hung
   * process, whose row locks would otherwise keep other engines from taking its runs over.
   * Default 30000; 0 leaves the server's setting.
   */
  idleTransactionTimeoutMs?: number
}

export interface ResolvedPostgresOptions {
  connectionString: string | null
  pool: pg.Pool | null
  schema: string
  max: number
  statementTimeoutMs: number | null
  /** 0: the server's setting. */
  idleTransactionTimeoutMs: number
}

const DEFAULT_MAX = 10
const DEFAULT_IDLE_TRANSACTION_TIMEOUT_MS = 30_000

export function resolveOptions(options: PostgresStoreOptions): ResolvedPostgresOptions {
  const { connectionString, pool, schema = 'public', max = DEFAULT_MAX } = options
  if ((connectionString === undefined) === (pool === undefined)) {
    throw new InvalidArgumentError('postgres store: give exactly one of connectionString and pool')
  }
  if (
    connectionString !== undefined &&
    (typeof connectionString !== 'string' || connectionString === '')
  ) {
    throw new InvalidArgumentError('postgres store: connectionString must be a non-empty string')
  }
  validateSchema(schema)
  storeInteger('postgres', 'max', max, POOL_SIZE)
  // Only a left-out option takes its default: null is a value, and refused like any other.
  const statementTimeoutMs =
    options.statementTimeoutMs === undefined
      ? null
      : storeInteger('postgres', 'statementTimeoutMs', options.statementTimeoutMs, {
          ...WAIT_MS,
          min: 1,
        })
  const idleTransactionTimeoutMs = storeInteger(
    'postgres',
    'idleTransactionTimeoutMs',
    options.idleTransactionTimeoutMs === undefined
      ? DEFAULT_IDLE_TRANSACTION_TIMEOUT_MS
      : options.idleTransactionTimeoutMs,
    WAIT_MS,
  )
  return {
    connectionString: connectionString ?? null,
    pool: pool ?? null,
    schema,
    max,
    statementTimeoutMs,
    idleTransactionTimeoutMs,
  }
}

/** Any identifier Postgres keeps whole: not empty, no NUL, at most 63 bytes. */
export function validateSchema(schema: unknown): void {
  checkSchemaName(schema, 'postgres store')
}
