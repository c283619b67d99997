/**
 * The stores every engine test runs against. `DB=memory,sqlite,postgres,mysql,knex-sqlite,
 * knex-postgres,knex-mysql` (default: all of them) selects; each test gets a fresh store — a temporary SQLite file, its own Postgres
 * schema, its own MySQL database — and removes it afterwards. An unreachable service is skipped with one loud line,
 * or fails the run under CI=true (tests/helpers/services.ts).
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MemoryStore } from '@cairn/core'
import type { StateStore } from '@cairn/core/contracts'
import { SqliteStore } from '@cairn/sql/sqlite'
import { MYSQL_URL, PG_URL, serviceAvailable } from './services.ts'

export interface StoreHandle {
  store: StateStore
  /** Another handle on the same database (a second process would open one); memory: the same object. */
  reopen(): StateStore
  cleanup(): Promise<void>
  /** Where a SQL store's tables are, for what shares its database (the db transport). */
  location?: StoreLocation
}

export type StoreLocation =
  | { dialect: 'postgres'; schema: string }
  | { dialect: 'mysql'; database: string }
  | { dialect: 'sqlite'; path: string }

type Factory = () => Promise<StoreHandle>

/** Closes every store opened on one database, then removes the database. */
function handleOf(open: () => StateStore, drop: () => Promise<void>): StoreHandle {
  const opened: StateStore[] = []
  const track = () => {
    const store = open()
    opened.push(store)
    return store
  }
  const store = track()
  return {
    store,
    reopen: track,
    cleanup: async () => {
      for (const s of opened) await s.close()
      await drop()
    },
  }
}

const factories: Record<string, Factory> = {
  memory: async () => {
    const store = new MemoryStore()
    return { store, reopen: () => store, cleanup: async () => {} }
  },
  sqlite: async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-test-'))
    const path = join(dir, 'cairn.db')
    return {
      ...handleOf(
        () => new SqliteStore({ path }),
        async () => rmSync(dir, { recursive: true, force: true }),
      ),
      location: { dialect: 'sqlite', path },
    }
  },
  postgres: async () => {
    const { PostgresStore } = await import('@cairn/sql/postgres')
    const schema = `cairn_t_${randomBytes(6).toString('hex')}`
    return {
      ...handleOf(
        () => new PostgresStore({ connectionString: PG_URL, schema, max: 4 }),
        () => dropPostgresSchema(schema),
      ),
      location: { dialect: 'postgres', schema },
    }
  },
  mysql: async () => {
    const { MysqlStore } = await import('@cairn/sql/mysql')
    const database = `cairn_t_${randomBytes(6).toString('hex')}`
    return {
      ...handleOf(
        () => new MysqlStore({ uri: MYSQL_URL, database, max: 4 }),
        () => dropMysqlDatabase(database),
      ),
      location: { dialect: 'mysql', database },
    }
  },
  'knex-sqlite': async () => {
    const { default: knex } = await import('knex')
    const { KnexStore } = await import('@cairn/sql/knex')
    const dir = mkdtempSync(join(tmpdir(), 'cairn-test-'))
    const connection = { filename: join(dir, 'cairn.db') }
    const app = knex({ client: 'better-sqlite3', connection, useNullAsDefault: true })
    return handleOf(
      () => new KnexStore(app),
      async () => {
        await app.destroy()
        rmSync(dir, { recursive: true, force: true })
      },
    )
  },
  'knex-postgres': async () => {
    const { default: knex } = await import('knex')
    const { KnexStore } = await import('@cairn/sql/knex')
    const schema = `cairn_t_${randomBytes(6).toString('hex')}`
    const app = knex({ client: 'pg', connection: PG_URL, pool: { min: 0, max: 8 } })
    return handleOf(
      () => new KnexStore(app, { schema }),
      async () => {
        await app.destroy()
        await dropPostgresSchema(schema)
      },
    )
  },
  'knex-mysql': async () => {
    const { default: knex } = await import('knex')
    const { KnexStore } = await import('@cairn/sql/knex')
    const database = `cairn_t_${randomBytes(6).toString('hex')}`
    const app = knex({ client: 'mysql2', connection: MYSQL_URL, pool: { min: 0, max: 8 } })
    return handleOf(
      () => new KnexStore(app, { database }),
      async () => {
        await app.destroy()
        await dropMysqlDatabase(database)
      },
    )
  },
}

export async function dropMysqlDatabase(database: string): Promise<void> {
  const mysql = await import('mysql2/promise')
  const connection = await mysql.createConnection({ uri: MYSQL_URL })
  try {
    await connection.query(`DROP DATABASE IF EXISTS \`${database}\``)
  } finally {
    await connection.end()
  }
}

export async function dropPostgresSchema(schema: string): Promise<void> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({ connectionString: PG_URL })
  await client.connect()
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)
  } finally {
    await client.end()
  }
}

const SERVICE_OF: Record<string, 'postgres' | 'mysql' | undefined> = {
  postgres: 'postgres',
  mysql: 'mysql',
  'knex-postgres': 'postgres',
  'knex-mysql': 'mysql',
}

/** The stores to run: DB's list (default: every store), minus unreachable services outside CI. */
export async function selectedStores(): Promise<string[]> {
  const names = Object.keys(factories)
  const wanted = (process.env.DB ?? names.join(','))
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  for (const name of wanted)
    if (!(name in factories))
      throw new Error(`DB=${name}: unknown store (known: ${names.join(', ')})`)
  const available: string[] = []
  for (const name of wanted) {
    const service = SERVICE_OF[name]
    if (service === undefined || (await serviceAvailable(service))) available.push(name)
  }
  return available
}

export function openStore(name: string): Promise<StoreHandle> {
  return (factories[name] as Factory)()
}
