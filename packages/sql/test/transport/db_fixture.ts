/**
 * A db transport per test on each dialect: its own Postgres schema, MariaDB database or SQLite
 * file, dropped afterwards. A server that is down skips its tests with one loud line (a failure
 * under CI=true), as for the stores.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { RefusedMessage } from '@cairn/core/contracts'
import type { TransportUnderTest } from '@cairn/conformance'
import { MYSQL_URL, PG_URL, serviceAvailable } from '../../../../tests/helpers/services.ts'
import { dropMysqlDatabase, dropPostgresSchema } from '../../../../tests/helpers/stores.ts'
import {
  mysqlTransport,
  postgresTransport,
  sqliteTransport,
  type DbTransport,
  type DbTransportTuning,
} from '../../src/transport/index.ts'
import { keyOf } from '../../src/transport/keys.ts'
import type { TransportTables } from '../../src/transport/tables.ts'

export type Dialect = 'postgres' | 'mysql' | 'sqlite'
export const DIALECTS: Dialect[] = ['postgres', 'mysql', 'sqlite']

/** Whether the dialect's server is up (SQLite always is). */
export async function dialectUp(dialect: Dialect): Promise<boolean> {
  return dialect === 'sqlite' ? true : serviceAvailable(dialect)
}

export type Tuning = Omit<DbTransportTuning, 'onRefused'>

export interface DbUnderTest extends TransportUnderTest {
  transport: DbTransport
  /** Where it lives, for a second process: the options that reach the same tables. */
  where: {
    connectionString?: string
    schema?: string
    uri?: string
    database?: string
    path?: string
  }
  /** The tables, read and written directly (for assertions and raw rows). */
  tables(): Promise<TransportTables>
}

export function createDbUnderTest(dialect: Dialect, tuning: Tuning = {}): DbUnderTest {
  const name = `cairn_tt_${randomBytes(6).toString('hex')}`
  const refused: RefusedMessage[] = []
  const common = {
    pollIntervalMs: 50,
    redeliverAfterMs: 100,
    onRefused: (r: RefusedMessage) => refused.push(r),
    ...tuning,
  }
  let transport: DbTransport
  let where: DbUnderTest['where']
  let drop: () => Promise<void>
  if (dialect === 'postgres') {
    where = { connectionString: PG_URL, schema: name }
    transport = postgresTransport({ connectionString: PG_URL, schema: name, ...common })
    drop = () => dropPostgresSchema(name)
  } else if (dialect === 'mysql') {
    where = { uri: MYSQL_URL, database: name }
    transport = mysqlTransport({ uri: MYSQL_URL, database: name, ...common })
    drop = () => dropMysqlDatabase(name)
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-transport-'))
    where = { path: join(dir, 'cairn.db') }
    transport = sqliteTransport({ path: join(dir, 'cairn.db'), ...common })
    drop = async () => rmSync(dir, { recursive: true, force: true })
  }
  const opened: TransportTables[] = []
  const tables = async (): Promise<TransportTables> => {
    const made = await openTables(dialect, where)
    await made.ensureSchema()
    opened.push(made)
    return made
  }
  return {
    transport,
    where,
    tables,
    engine: () => transport.engine(),
    worker: () => transport.worker(),
    refused,
    publishRawTask: async (taskId, text, step) => {
      const db = await tables()
      await db.insertRawTask(keyOf(taskId), keyOf(step), text)
    },
    sendRawReport: async (text) => {
      const db = await tables()
      await db.insertReports([text])
    },
    cleanup: async () => {
      for (const made of opened) await made.close()
      await drop()
    },
  }
}

async function openTables(dialect: Dialect, where: DbUnderTest['where']): Promise<TransportTables> {
  if (dialect === 'postgres') {
    const { default: pg } = await import('pg')
    const { PostgresTables } = await import('../../src/transport/postgres_tables.ts')
    const pool = new pg.Pool({ connectionString: where.connectionString, max: 2 })
    return new PostgresTables({
      pool,
      owned: true,
      schema: where.schema as string,
      listenerConfig: { connectionString: where.connectionString },
    })
  }
  if (dialect === 'mysql') {
    const mysql = await import('mysql2/promise')
    const { MysqlTables } = await import('../../src/transport/mysql_tables.ts')
    const pool = mysql.createPool({ uri: where.uri as string, connectionLimit: 2 })
    return new MysqlTables({ pool, owned: true, database: where.database as string })
  }
  const { SqliteTables } = await import('../../src/transport/sqlite_tables.ts')
  return new SqliteTables(where.path as string)
}
