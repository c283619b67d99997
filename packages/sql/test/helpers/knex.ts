/**
 * Knex instances for the tests of `@cairn/sql/knex`, on the services the other tests use, and
 * conformance factories giving each test a store in a fresh schema, database or file.
 */
import type { StoreFactory } from '@cairn/conformance'
import type { StateStore } from '@cairn/core/contracts'
import { createKnexStore, type KnexStoreOptions } from '@cairn/sql/knex'
import knex, { type Knex } from 'knex'
import { PG_URL, dropSchema, randomSchema } from './postgres.ts'
import { MYSQL_URL, dropDatabase, randomDatabase } from './mysql.ts'
import { makeTempDir } from './temp_dir.ts'

/** Knex's own pool settings for the tests: none kept open while idle, `max` at once. */
const pool = (max: number) => ({ min: 0, max })

export function pgKnex(max = 4, connection: Knex.Config['connection'] = PG_URL): Knex {
  return knex({ client: 'pg', connection, pool: pool(max) })
}

export function mysqlKnex(max = 4): Knex {
  return knex({ client: 'mysql2', connection: MYSQL_URL, pool: pool(max) })
}

/** Knex on better-sqlite3, its default pool (one connection). */
export function sqliteKnex(filename: string): Knex {
  return knex({ client: 'better-sqlite3', connection: { filename }, useNullAsDefault: true })
}

/** Where a test's store lives on a server: a fresh schema (Postgres) or database (MySQL). */
export interface FreshPlace {
  place: string
  options: KnexStoreOptions
  drop(): Promise<void>
}

export function freshPlace(app: Knex): FreshPlace {
  if (app.client.config.client === 'pg') {
    const schema = randomSchema()
    return { place: schema, options: { schema }, drop: () => dropSchema(schema) }
  }
  const database = randomDatabase()
  return { place: database, options: { database }, drop: () => dropDatabase(database) }
}

/** A store on `shared` per test, in a place of its own. */
export function knexServerFactory(name: string, shared: Knex): StoreFactory {
  return {
    name,
    create: async () => {
      const { options, drop } = freshPlace(shared)
      return { store: createKnexStore(shared, options), cleanup: drop }
    },
  }
}

/** An opened store on `app` in a place of its own; afterwards closed, dropped, `app` destroyed. */
export async function withKnexStore(
  app: Knex,
  body: (store: StateStore, place: string) => Promise<void>,
): Promise<void> {
  const { place, options, drop } = freshPlace(app)
  const store = createKnexStore(app, options)
  try {
    await store.open()
    await body(store, place)
  } finally {
    await store.close()
    await drop()
    await app.destroy()
  }
}

/** A store per test on a Knex of its own: a temporary file, or ':memory:'. */
export function knexSqliteFactory(name: string, inMemory = false): StoreFactory {
  return {
    name,
    create: async () => {
      const dir = await makeTempDir()
      const app = sqliteKnex(inMemory ? ':memory:' : dir.file('knex.db'))
      const store = createKnexStore(app)
      const cleanup = async () => {
        await app.destroy()
        await dir.remove()
      }
      return { store, cleanup }
    },
  }
}
