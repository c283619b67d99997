/**
 * Lucid connections for the `stores.lucid` tests, one per dialect, each in a place of its own
 * (a SQLite file, a Postgres schema on the connection's search path, a MySQL database), so the
 * app's tables and Cairn's sit side by side and tests run in parallel. A server that is down
 * skips its tests with one loud line, or fails them under CI (tests/helpers/services.ts).
 */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { defineConfig as defineDatabaseConfig } from '@adonisjs/lucid'
import mysql from 'mysql2/promise'
import pg from 'pg'
import {
  MYSQL_URL,
  PG_URL,
  START_COMMANDS,
  probe,
  servicesRequired,
} from '../../../tests/helpers/services.ts'
import type { LucidStoreOptions } from '@cairn/adonis'
import { tempDir } from './helpers.ts'

export type LucidDialect = 'sqlite' | 'postgres' | 'mysql'

export interface LucidPlace {
  /** config/database.ts with one connection, `primary`. */
  database: ReturnType<typeof defineDatabaseConfig>
  store: LucidStoreOptions
  /** Removes the place: call it once the app is terminated (its engine polls until then). */
  drop(): Promise<void>
}

const randomName = () => `cairn_lucid_${randomBytes(6).toString('hex')}`

/** A place for `dialect` (a SQLite file is removed when the test ends; servers' by `drop`). */
export async function lucidPlace(t: TestContext, dialect: LucidDialect): Promise<LucidPlace> {
  if (dialect === 'sqlite') {
    const dir = await tempDir(t)
    const primary = {
      client: 'better-sqlite3' as const,
      connection: { filename: join(dir, 'app.sqlite') },
      useNullAsDefault: true,
    }
    return {
      database: defineDatabaseConfig({ connection: 'primary', connections: { primary } }),
      store: {},
      drop: () => Promise.resolve(),
    }
  }
  const name = randomName()
  if (dialect === 'postgres') {
    // The store creates the schema on open; the app's unqualified tables land there too.
    const primary = {
      client: 'pg' as const,
      connection: { connectionString: PG_URL },
      searchPath: [name],
    }
    return {
      database: defineDatabaseConfig({ connection: 'primary', connections: { primary } }),
      store: { schema: name },
      drop: () => admin('postgres', `DROP SCHEMA IF EXISTS "${name}" CASCADE`),
    }
  }
  await admin('mysql', `CREATE DATABASE \`${name}\``)
  const url = new URL(MYSQL_URL)
  const connection = {
    host: url.hostname,
    port: Number(url.port || 3306),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: name,
  }
  const primary = { client: 'mysql2' as const, connection }
  return {
    database: defineDatabaseConfig({ connection: 'primary', connections: { primary } }),
    store: {},
    drop: () => admin('mysql', `DROP DATABASE IF EXISTS \`${name}\``),
  }
}

async function admin(service: 'postgres' | 'mysql', sql: string): Promise<void> {
  if (service === 'postgres') {
    const client = new pg.Client({ connectionString: PG_URL })
    await client.connect()
    try {
      await client.query(sql)
    } finally {
      await client.end()
    }
    return
  }
  const connection = await mysql.createConnection({ uri: MYSQL_URL })
  try {
    await connection.query(sql)
  } finally {
    await connection.end()
  }
}

/** The dialects this run can test; an unreachable server registers one skipped (or failing) test. */
export async function availableDialects(label: string): Promise<LucidDialect[]> {
  const dialects: LucidDialect[] = ['sqlite']
  for (const service of ['postgres', 'mysql'] as const) {
    const failure = await probe(service)
    if (failure === null) {
      dialects.push(service)
      continue
    }
    const message = `${service} is not reachable (${failure}); start it with: ${START_COMMANDS[service]}`
    if (servicesRequired())
      void test(`${label} [${service}] needs ${service}`, () => assert(message))
    else {
      console.warn(`SKIPPING ${label} on ${service}: ${message}`)
      void test(`${label} [${service}]`, { skip: message }, () => {})
    }
  }
  return dialects
}

function assert(message: string): never {
  throw new Error(message)
}
