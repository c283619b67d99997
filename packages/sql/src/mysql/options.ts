import { InvalidArgumentError } from '@cairn/core'
import type { Pool } from 'mysql2/promise'
import { POOL_SIZE, storeInteger } from '../option_numbers.ts'

export interface MysqlStoreOptions {
  /** `mysql://user:password@host:port/database`; or give `pool`. */
  uri?: string
  /** The same as `uri` (the name the Postgres store uses). */
  connectionString?: string
  /**
   * An existing `mysql2/promise` pool to use instead of creating one. The store does not end
   * it on close() and leaves its sessions as they are: see docs/mysql.md for what such a pool
   * needs (utf8mb4, strict mode, no NO_BACKSLASH_ESCAPES; READ COMMITTED recommended).
   */
  pool?: Pool
  /**
   * Database holding Cairn's tables, created on open() if missing. Default: the database
   * named in `uri` (or the one `pool` is configured with).
   */
  database?: string
  /** Connections in the pool the store creates (mysql2's connectionLimit). Default 10. */
  max?: number
  /**
   * MariaDB: seconds a connection of the store's own pool may sit idle inside a transaction
   * before the server ends it (`idle_transaction_timeout`), rolling the transaction back.
   * The store's transactions idle only between their own statements, so a connection idle
   * that long belongs to a frozen or hung process, whose row locks would otherwise keep other
   * engines from taking its runs over until the connection dies (`wait_timeout`, 8 hours by
   * default). Default 30; 0 leaves the server's setting. Ignored by MySQL, which lacks it.
   */
  idleTransactionTimeoutS?: number
}

export interface ResolvedMysqlOptions {
  /** The server to connect to, without a default database (every statement names it). */
  uri: string | null
  pool: Pool | null
  database: string
  max: number
  idleTransactionTimeoutS: number
}

const DEFAULT_MAX = 10
const DEFAULT_IDLE_TRANSACTION_TIMEOUT_S = 30
/** A year: the server's own maximum is larger, any longer is a mistake. */
const MAX_IDLE_TRANSACTION_TIMEOUT_S = 31_536_000
/** MySQL and MariaDB identifiers: at most 64 characters. */
const MAX_IDENTIFIER_CHARS = 64

export function resolveOptions(options: MysqlStoreOptions): ResolvedMysqlOptions {
  const { pool, max = DEFAULT_MAX } = options
  const uri = serverUri(options)
  if ((uri === undefined) === (pool === undefined)) {
    throw new InvalidArgumentError(
      'mysql store: give exactly one of uri (or connectionString) and pool',
    )
  }
  const database = options.database ?? (uri === undefined ? poolDatabase(pool) : uriDatabase(uri))
  validateDatabase(database)
  storeInteger('mysql', 'max', max, POOL_SIZE)
  return {
    uri: uri === undefined ? null : withoutDatabase(uri),
    pool: pool ?? null,
    database,
    max,
    idleTransactionTimeoutS: idleTimeoutOf(options.idleTransactionTimeoutS),
  }
}

function idleTimeoutOf(seconds: unknown = DEFAULT_IDLE_TRANSACTION_TIMEOUT_S): number {
  return storeInteger('mysql', 'idleTransactionTimeoutS (seconds)', seconds, {
    min: 0,
    max: MAX_IDLE_TRANSACTION_TIMEOUT_S,
  })
}

function serverUri(options: MysqlStoreOptions): string | undefined {
  const { uri, connectionString } = options
  if (uri !== undefined && connectionString !== undefined) {
    throw new InvalidArgumentError('mysql store: give uri or connectionString, not both')
  }
  const given = uri ?? connectionString
  if (given === undefined) return undefined
  if (typeof given !== 'string' || !URL.canParse(given)) {
    throw new InvalidArgumentError('mysql store: uri must be a mysql://user@host:port/database URL')
  }
  return given
}

export function uriDatabase(uri: string): string | undefined {
  const name = decodeURIComponent(new URL(uri).pathname.slice(1))
  return name === '' ? undefined : name
}

/**
 * The store's connections open without a default database: every statement names its
 * database, so a database that does not exist yet (created by open()) cannot fail the
 * connection itself.
 */
function withoutDatabase(uri: string): string {
  const url = new URL(uri)
  url.pathname = '/'
  return url.toString()
}

function poolDatabase(pool: Pool | undefined): string | undefined {
  const config = (pool as { pool?: { config?: { connectionConfig?: { database?: unknown } } } })
    ?.pool?.config?.connectionConfig
  return typeof config?.database === 'string' && config.database !== ''
    ? config.database
    : undefined
}

/** Any name MySQL and MariaDB keep whole: 1 to 64 characters, no NUL, no trailing space. */
export function validateDatabase(database: unknown): asserts database is string {
  if (
    typeof database !== 'string' ||
    database === '' ||
    [...database].length > MAX_IDENTIFIER_CHARS ||
    database.includes('\u0000') ||
    database.endsWith(' ')
  ) {
    throw new InvalidArgumentError(
      `mysql store: database must be a name of 1 to ${MAX_IDENTIFIER_CHARS} characters without NUL or a trailing space (give \`database\` or name one in the uri), got ${JSON.stringify(database)}`,
    )
  }
}
