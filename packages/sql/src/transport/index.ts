/**
 * `@cairn/sql/transport` — the db transport: remote steps through the database the store
 * already uses, no broker (docs/db-transport.md).
 *
 *   const db = postgresTransport({ connectionString, schema: 'cairn' })
 *   const engine = new Engine({ store, transports: { db: db.engine() } })
 *   const worker = createWorker({ transport: db.worker(), steps })
 *
 * Each factory checks its options at once (E_INVALID_ARGUMENT) and loads its database driver
 * when a half is opened, so a worker process loads one driver and no store code.
 */
import type { EngineTransport, WorkerTransport } from '@cairn/core/contracts'
import type pg from 'pg'
import type { Pool as MysqlPool, PoolOptions as MysqlPoolOptions } from 'mysql2/promise'
import { DbEngineTransport } from './engine_half.ts'
import { mysqlSocket, OwnSockets, postgresSocket } from './own_sockets.ts'
import {
  checkInteger,
  checkObject,
  checkText,
  checkTransportKeys,
  exactlyOne,
  resolveTuning,
  type DbTransportTuning,
} from './options.ts'
import type { TransportTables } from './tables.ts'
import { DbWorkerTransport } from './worker_half.ts'
import { checkDatabaseName, checkSchemaName } from '../identifiers.ts'

export type { DbTransportTuning } from './options.ts'

/** Both halves; each half made is opened and closed by its user. */
export interface DbTransport {
  /** A new engine half (one per engine). */
  engine(): EngineTransport
  /** A new worker half (one per worker process). */
  worker(): WorkerTransport
}

/** `postgresTransport`'s options: one way to reach the database, where the tables go, tuning. */
export interface PostgresTransportOptions extends DbTransportTuning {
  /** `postgres://user@host:port/database`; or give `connection` or `pool`. */
  connectionString?: string
  /** node-postgres pool settings (host, port, user, password, database, ssl, …). */
  connection?: pg.PoolConfig
  /** An existing pool (left open on close); wake-ups use a client made from its options. */
  pool?: pg.Pool
  /** Schema holding the transport's tables (the store's, usually). Default `public`. */
  schema?: string
  /** Connections of the pool each half creates. Default 4. */
  max?: number
}

/** `mysqlTransport`'s options: one way to reach the database, where the tables go, tuning. */
export interface MysqlTransportOptions extends DbTransportTuning {
  /** `mysql://user:password@host:port/database`; or give `connection` or `pool`. */
  uri?: string
  /** mysql2 pool settings (host, port, user, password, database, ssl, …). */
  connection?: MysqlPoolOptions
  /** An existing mysql2/promise pool (left open on close). */
  pool?: MysqlPool
  /** Database holding the transport's tables, created when missing. Default: the URI's. */
  database?: string
  /** Connections of the pool each half creates. Default 4. */
  max?: number
}

/** `sqliteTransport`'s options: the database file, tuning. */
export interface SqliteTransportOptions extends DbTransportTuning {
  /** The database file (the store's, usually); engines and workers on this host share it. */
  path: string
}

const POOL = { min: 1, max: 1_000 }

/** The db transport on Postgres: SKIP LOCKED claims, LISTEN/NOTIFY wake-ups. */
export function postgresTransport(options: PostgresTransportOptions): DbTransport {
  const call = 'postgresTransport'
  checkTransportKeys(options, call, ['connectionString', 'connection', 'pool', 'schema', 'max'])
  exactlyOne(options as Record<string, unknown>, call, ['connectionString', 'connection', 'pool'])
  const connectionString =
    options.connectionString === undefined
      ? null
      : checkText(options.connectionString, call, 'connectionString')
  const connection = checkObject(options.connection, call, 'connection') as pg.PoolConfig | null
  const schema = checkSchemaName(options.schema ?? 'public', call)
  const max = integerOption(options.max, 4, call, 'max')
  const tuning = resolveTuning(options, call, 1_000)
  const tables = async (): Promise<TransportTables> => {
    const { default: pgModule } = await import('pg')
    const { PostgresTables } = await import('./postgres_tables.ts')
    const given = options.pool
    const settings: pg.PoolConfig = connection ?? { connectionString: connectionString ?? '' }
    // Sockets made here, so a close can cut them (own_sockets.ts); a given pool's are its owner's.
    const sockets = new OwnSockets()
    const stream = postgresSocket(sockets)
    const pool = given ?? new pgModule.Pool({ ...settings, stream: settings.stream ?? stream, max })
    if (given === undefined) pool.on('error', tuning.onError)
    const base = given === undefined ? settings : given.options
    const listenerConfig = { ...base, stream: base.stream ?? stream }
    return new PostgresTables({ pool, owned: given === undefined, schema, listenerConfig, sockets })
  }
  return halves(tables, tuning)
}

/** The db transport on MariaDB (10.6+) and MySQL 8: SKIP LOCKED claims, polling. */
export function mysqlTransport(options: MysqlTransportOptions): DbTransport {
  const call = 'mysqlTransport'
  checkTransportKeys(options, call, ['uri', 'connection', 'pool', 'database', 'max'])
  exactlyOne(options as Record<string, unknown>, call, ['uri', 'connection', 'pool'])
  const uri = options.uri === undefined ? null : checkText(options.uri, call, 'uri')
  const connection = checkObject(options.connection, call, 'connection') as MysqlPoolOptions | null
  const database = options.database === undefined ? null : checkDatabaseName(options.database, call)
  const max = integerOption(options.max, 4, call, 'max')
  const tuning = resolveTuning(options, call, 100)
  const tables = async (): Promise<TransportTables> => {
    const mysql = await import('mysql2/promise')
    const { MysqlTables } = await import('./mysql_tables.ts')
    const given = options.pool
    const settings: MysqlPoolOptions = connection ?? { uri: uri ?? '' }
    // Sockets made here, so a close can cut them (own_sockets.ts); a given pool's are its owner's.
    const sockets = new OwnSockets()
    const stream: unknown = settings.stream ?? mysqlSocket(sockets)
    const pool = given ?? mysql.createPool({ ...settings, stream, connectionLimit: max })
    return new MysqlTables({ pool, owned: given === undefined, database, sockets })
  }
  return halves(tables, tuning)
}

/** The db transport on SQLite: engines and workers of one host, polling. */
export function sqliteTransport(options: SqliteTransportOptions): DbTransport {
  const call = 'sqliteTransport'
  checkTransportKeys(options, call, ['path'])
  const path = checkText(options.path, call, 'path')
  const tuning = resolveTuning(options, call, 100)
  const tables = async (): Promise<TransportTables> => {
    const { SqliteTables } = await import('./sqlite_tables.ts')
    return new SqliteTables(path)
  }
  return halves(tables, tuning)
}

function halves(
  tables: () => Promise<TransportTables>,
  tuning: ReturnType<typeof resolveTuning>,
): DbTransport {
  return {
    engine: () => new DbEngineTransport(tables, tuning),
    worker: () => new DbWorkerTransport(tables, tuning),
  }
}

function integerOption(value: unknown, fallback: number, call: string, option: string): number {
  return value === undefined ? fallback : checkInteger(value, `${call}: ${option}`, POOL)
}
