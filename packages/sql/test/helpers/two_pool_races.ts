/**
 * Races across connections on every SQL store: each case gets two stores (two pools) on one
 * fresh database — SQLite, Postgres (plain and portable writers), MySQL/MariaDB — opened
 * before and closed after it, the database dropped at the end.
 */
import { test } from 'node:test'
import type { StateStore } from '@cairn/core/contracts'
import { createPostgresStore } from '@cairn/sql/postgres'
import { createMysqlStore } from '@cairn/sql/mysql'
import { createSqliteStore } from '@cairn/sql/sqlite'
import { PortablePostgresStore } from './portable_postgres_store.ts'
import { PG_URL, pgTest, randomSchema, dropSchema } from './postgres.ts'
import { MYSQL_URL, mysqlTest, randomDatabase, dropDatabase } from './mysql.ts'
import { makeTempDir } from './temp_dir.ts'

export type RaceBody = (stores: readonly StateStore[]) => Promise<void>

/** Two stores (pools) on one database: the races cross connections. */
async function onTwo(make: () => StateStore, body: RaceBody): Promise<void> {
  const stores = [make(), make()]
  try {
    for (const store of stores) await store.open()
    await body(stores)
  } finally {
    for (const store of stores) await store.close()
  }
}

/** One test per case and SQL store, named `<store>: <title>`. */
export function racesOnEverySqlStore(cases: ReadonlyArray<[title: string, body: RaceBody]>): void {
  for (const [title, body] of cases) {
    void test(`sqlite: ${title}`, async () => {
      const dir = await makeTempDir()
      try {
        await onTwo(() => createSqliteStore({ path: dir.file('races.db') }), body)
      } finally {
        await dir.remove()
      }
    })
    for (const [name, make] of [
      ['postgres', createPostgresStore],
      [
        'postgres (portable writers)',
        (o: { connectionString: string; schema: string }) => new PortablePostgresStore(o),
      ],
    ] as const)
      pgTest(`${name}: ${title}`, async () => {
        const schema = randomSchema()
        try {
          await onTwo(() => make({ connectionString: PG_URL, schema }), body)
        } finally {
          await dropSchema(schema)
        }
      })
    mysqlTest(`mysql: ${title}`, async () => {
      const database = randomDatabase()
      try {
        await onTwo(() => createMysqlStore({ uri: MYSQL_URL, database }), body)
      } finally {
        await dropDatabase(database)
      }
    })
  }
}
