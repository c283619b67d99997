/**
 * Every number a store's options hold, fed what a careless config sends (NaN, ±Infinity, -1, 0,
 * fractions, 2^31, 2^53, strings, objects): refused with E_INVALID_ARGUMENT when the store is
 * made, or taken — the same rule (`checkInteger` from @cairn/core) the engine applies. Nothing
 * here connects: a store checks its options before it opens.
 */
import { test } from 'node:test'
import knex from 'knex'
import { MAX_TIMER_MS } from '@cairn/core/store-kit'
import { createKnexStore } from '@cairn/sql/knex'
import { createMysqlStore } from '@cairn/sql/mysql'
import { createPostgresStore } from '@cairn/sql/postgres'
import { createSqliteStore } from '@cairn/sql/sqlite'
import { assertEveryProbe, int, type NumberEntry } from '../../core/test/number_probes.ts'

const PG = 'postgres://cairn@127.0.0.1:1/never'
const MYSQL = 'mysql://cairn@127.0.0.1:1/never'

/** A made store that never opened: its pool (if any) is ended without ever connecting. */
async function discard(store: { close(): Promise<void> }): Promise<void> {
  await store.close().catch(() => undefined)
}

const wait = (min: number) => (v: unknown) => int(v, min, MAX_TIMER_MS)

const ENTRIES: NumberEntry[] = [
  {
    name: 'createPostgresStore({ max })',
    accepts: (v) => int(v, 1, 10_000),
    call: (v) => discard(createPostgresStore({ connectionString: PG, max: v as number })),
  },
  {
    name: 'createPostgresStore({ statementTimeoutMs })',
    accepts: wait(1),
    call: (v) =>
      discard(createPostgresStore({ connectionString: PG, statementTimeoutMs: v as number })),
  },
  {
    name: 'createPostgresStore({ idleTransactionTimeoutMs })',
    accepts: wait(0),
    call: (v) =>
      discard(createPostgresStore({ connectionString: PG, idleTransactionTimeoutMs: v as number })),
  },
  {
    name: 'createMysqlStore({ max })',
    accepts: (v) => int(v, 1, 10_000),
    call: (v) => discard(createMysqlStore({ uri: MYSQL, max: v as number })),
  },
  {
    name: 'createMysqlStore({ idleTransactionTimeoutS })',
    accepts: (v) => int(v, 0, 31_536_000),
    call: (v) => discard(createMysqlStore({ uri: MYSQL, idleTransactionTimeoutS: v as number })),
  },
  {
    name: 'createSqliteStore({ busyTimeoutMs })',
    accepts: wait(0),
    call: (v) => discard(createSqliteStore({ path: ':memory:', busyTimeoutMs: v as number })),
  },
  {
    name: 'createKnexStore(sqlite, { busyTimeoutMs })',
    accepts: wait(0),
    call: async (v) => {
      const db = knex({
        client: 'better-sqlite3',
        connection: { filename: ':memory:' },
        useNullAsDefault: true,
      })
      try {
        await discard(createKnexStore(db, { busyTimeoutMs: v as number }))
      } finally {
        await db.destroy()
      }
    },
  },
]

for (const entry of ENTRIES) {
  void test(`${entry.name}: bad numbers are refused, valid ones taken`, () =>
    assertEveryProbe(entry))
}
