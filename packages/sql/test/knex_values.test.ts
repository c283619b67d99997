/**
 * Values on a Knex instance's connections behave exactly as on each dialect's own store: a
 * raw NUL, a lone surrogate, an integer beyond 2^53 written behind the store's back. The
 * same probes run on both stores and their outcomes (results, or error code, outcome and
 * message) must be equal.
 */
import assert from 'node:assert/strict'
import { DatabaseSync } from 'node:sqlite'
import { test } from 'node:test'
import type { StateStore, StoreOp } from '@cairn/core/contracts'
import { createKnexStore } from '@cairn/sql/knex'
import { createSqliteStore } from '@cairn/sql/sqlite'
import type { Knex } from 'knex'
import { freshPlace, mysqlKnex, pgKnex, sqliteKnex } from './helpers/knex.ts'
import * as mysql from './helpers/mysql.ts'
import * as postgres from './helpers/postgres.ts'
import { makeTempDir } from './helpers/temp_dir.ts'

const T0 = 1_700_000_000_000
const BEYOND = '9007199254740993' // 2^53 + 1

const create = (id: string, input = '{}'): StoreOp => ({
  type: 'createRun',
  run: { id, workflow: 'w', version: 'v1', input, createdAt: T0 },
})

/** Runs an UPDATE of cairn_runs behind the store's back: `{runs}` is the table's name. */
type Raw = (sql: string) => Promise<void>

const PROBES: Record<string, (store: StateStore, raw: Raw) => Promise<unknown>> = {
  'a raw NUL in a payload': async (store) => {
    await store.applyBatch([create('nul', 'a\u0000b')], T0)
    return (await store.getRun('nul'))?.input
  },
  'a lone surrogate in an id': async (store) => {
    await store.applyBatch([create('lone-\ud800')], T0)
    return [(await store.getRun('lone-\ud800'))?.id, (await store.getRun('lone-\ufffd'))?.id]
  },
  'an integer beyond 2^53': async (store, raw) => {
    await store.applyBatch([create('big')], T0)
    await raw(`UPDATE {runs} SET available_at = ${BEYOND} WHERE id = 'big'`)
    return store.getRun('big')
  },
}

async function outcomes(store: StateStore, raw: Raw): Promise<Record<string, unknown>> {
  await store.open()
  const seen: Record<string, unknown> = {}
  for (const [name, probe] of Object.entries(PROBES)) {
    seen[name] = await probe(store, raw).then(
      (value) => ({ value }),
      (error: { code?: string; message: string; details?: Record<string, unknown> }) => ({
        code: error.code,
        outcome: error.details?.outcome,
        message: error.message,
      }),
    )
  }
  await store.close()
  return seen
}

function assertSame(viaKnex: Record<string, unknown>, own: Record<string, unknown>): void {
  assert.deepEqual(viaKnex, own)
  const big = own['an integer beyond 2^53'] as { code?: string; message?: string }
  assert.equal(big.code, 'E_STORE_FAILURE', 'never a rounded number')
  assert.match(big.message ?? '', new RegExp(BEYOND))
}

/** The probes on a server dialect's own store and on a store on `app`, compared. */
async function sameAsOwnStore(
  app: Knex,
  own: { store: StateStore; place: string; cleanup(): Promise<void> },
  raw: (place: string) => Raw,
): Promise<void> {
  const fresh = freshPlace(app)
  try {
    const seenOwn = await outcomes(own.store, raw(own.place))
    const viaKnex = await outcomes(createKnexStore(app, fresh.options), raw(fresh.place))
    assertSame(viaKnex, seenOwn)
  } finally {
    await Promise.all([own.cleanup(), fresh.drop()])
    await app.destroy()
  }
}

postgres.pgTest('Postgres on Knex: values behave as on the Postgres store', async () => {
  const own = postgres.storeInFreshSchema()
  await sameAsOwnStore(
    pgKnex(2),
    { ...own, place: own.schema },
    (schema) => (sql) =>
      postgres.adminQuery(sql.replace('{runs}', `"${schema}".cairn_runs`)).then(() => undefined),
  )
})

mysql.mysqlTest('MySQL/MariaDB on Knex: values behave as on the MySQL store', async () => {
  const own = mysql.storeInFreshDatabase()
  await sameAsOwnStore(
    mysqlKnex(2),
    { ...own, place: own.database },
    (database) => (sql) =>
      mysql.adminQuery(sql.replace('{runs}', `\`${database}\`.cairn_runs`)).then(() => undefined),
  )
})

void test('SQLite on Knex (better-sqlite3): values behave as on the node:sqlite store', async () => {
  const dir = await makeTempDir()
  const app = sqliteKnex(dir.file('knex.db'))
  const raw = (path: string) => (sql: string) => {
    const db = new DatabaseSync(path)
    try {
      db.exec(sql.replace('{runs}', 'cairn_runs'))
    } finally {
      db.close()
    }
    return Promise.resolve()
  }
  try {
    const own = createSqliteStore({ path: dir.file('own.db') })
    const seenOwn = await outcomes(own, raw(dir.file('own.db')))
    const viaKnex = await outcomes(createKnexStore(app), raw(dir.file('knex.db')))
    assertSame(viaKnex, seenOwn)
  } finally {
    await app.destroy()
    await dir.remove()
  }
})
