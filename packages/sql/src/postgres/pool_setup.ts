/**
 * The pool a store runs on: the caller's, or one the store creates and owns. Also the
 * connection settings of the wake-up listener, which needs a connection of its own.
 */
import pg from 'pg'
import type { ClientConfig } from 'pg'
import type { ResolvedPostgresOptions } from './options.ts'
import { PgPool } from './pg_pool.ts'
import { PG_TYPES } from './pg_types.ts'
import { guardConnection } from './connection_guard.ts'

/** How long a call waits for a connection (a new one, or a free one when all `max` are busy). */
const CONNECT_TIMEOUT_MS = 10_000

export interface PoolSetup {
  pool: PgPool
  /** Settings for a dedicated connection to the same database. */
  clientConfig: ClientConfig
}

export function setUpPool(options: ResolvedPostgresOptions): PoolSetup {
  if (options.pool !== null) {
    options.pool.on('connect', guardConnection)
    return { pool: new PgPool(options.pool, false), clientConfig: { ...options.pool.options } }
  }
  const clientConfig: ClientConfig = {
    connectionString: options.connectionString ?? undefined,
    application_name: 'cairn',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(options.statementTimeoutMs === null
      ? {}
      : { statement_timeout: options.statementTimeoutMs }),
    ...(options.idleTransactionTimeoutMs === 0
      ? {}
      : { idle_in_transaction_session_timeout: options.idleTransactionTimeoutMs }),
  }
  const pool = new pg.Pool({ ...clientConfig, max: options.max, types: PG_TYPES })
  // node-postgres emits 'error' on the pool when an idle connection fails (server restart,
  // pg_terminate_backend); with no listener that event would crash the process. The pool has
  // already dropped the connection: the next call opens a new one.
  pool.on('error', () => undefined)
  pool.on('connect', guardConnection)
  return { pool: new PgPool(pool, true), clientConfig }
}
