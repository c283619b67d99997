/**
 * Postgres ends a store connection left idle inside a transaction (`idleTransactionTimeoutMs`,
 * idle_in_transaction_session_timeout): a process frozen mid-transaction must not keep the row
 * locks it took — its runs' rows — from the engines that take those runs over.
 */
import assert from 'node:assert/strict'
import { createPostgresStore } from '@cairn/sql/postgres'
import { poolOfStore } from '../src/postgres/debug_access.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { assertFrozenHolderLosesItsLock } from './helpers/frozen_holder.ts'
import { PG_URL, adminQuery, pgTest, storeInFreshSchema } from './helpers/postgres.ts'

async function sessionTimeout(pool: SqlPool): Promise<string> {
  const result = await pool.query({ text: 'SHOW idle_in_transaction_session_timeout', values: [] })
  return String(result.rows[0]?.[0])
}

pgTest(
  'the store sets idle_in_transaction_session_timeout on its own connections (default 30 s)',
  async () => {
    const server = String((await adminQuery('SHOW idle_in_transaction_session_timeout'))[0]?.[0])
    for (const [options, expected] of [
      [{}, '30s'],
      [{ idleTransactionTimeoutMs: 1_500 }, '1500ms'],
      [{ idleTransactionTimeoutMs: 0 }, server],
    ] as const) {
      const { store, cleanup } = storeInFreshSchema(options)
      try {
        await store.open()
        assert.equal(await sessionTimeout(poolOfStore.get(store) as SqlPool), expected)
      } finally {
        await store.close()
        await cleanup()
      }
    }
  },
)

pgTest('a transaction idle past the timeout loses its connection and its row locks', async () => {
  const { store, schema, cleanup } = storeInFreshSchema({ idleTransactionTimeoutMs: 1_000 })
  try {
    await store.open()
    const pool = poolOfStore.get(store) as SqlPool
    const held = `"${schema}".held`
    await adminQuery(`CREATE TABLE ${held} (id text PRIMARY KEY)`)
    await adminQuery(`INSERT INTO ${held} VALUES ('held')`)
    await assertFrozenHolderLosesItsLock({
      pool,
      lockSql: `SELECT id FROM ${held} WHERE id = 'held' FOR UPDATE`,
      lockNowait: async () =>
        (await adminQuery(`SELECT id FROM ${held} WHERE id = 'held' FOR UPDATE NOWAIT`)).map(
          (row) => String(row[0]),
        ),
    })
  } finally {
    await store.close()
    await cleanup()
  }
})

pgTest('idleTransactionTimeoutMs must be whole milliseconds', async () => {
  for (const idleTransactionTimeoutMs of [-1, 1.5, Number.NaN])
    assert.throws(
      () => createPostgresStore({ connectionString: PG_URL, idleTransactionTimeoutMs }),
      {
        code: 'E_INVALID_ARGUMENT',
      },
    )
})
