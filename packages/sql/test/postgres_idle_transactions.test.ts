/**
 * Postgres ends a store connection left idle inside a transaction (`idleTransactionTimeoutMs`,
 * idle_in_transaction_session_timeout): a process frozen mid-transaction must not keep the row
 * locks it took — its runs' rows — from the engines that take those runs over.
 */
import assert from 'node:assert/strict'
import { createPostgresStore } from '@cairn/sql/postgres'
import { poolOfStore } from '../src/postgres/debug_access.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { PG_URL, adminQuery, pgTest, storeInFreshSchema } from './helpers/postgres.ts'

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

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
    const runs = `"${schema}".cairn_runs`
    await adminQuery(`CREATE TABLE "${schema}".held (id text PRIMARY KEY)`)
    await adminQuery(`INSERT INTO "${schema}".held VALUES ('held')`)
    let holderFailure: unknown = null
    // The "frozen" holder: locks the row, then goes quiet for longer than the timeout.
    const holder = pool
      .transaction(async (session) => {
        const lock = `SELECT id FROM "${schema}".held WHERE id = 'held' FOR UPDATE`
        await session.query({ text: lock, values: [] })
        await pause(3_000)
        await session.query({ text: `SELECT count(*) FROM ${runs}`, values: [] })
      })
      .catch((error: unknown) => (holderFailure = error))
    await pause(2_000)
    // Still "frozen", but its lock is gone: another session locks the row without waiting.
    const locked = await adminQuery(
      `SELECT id FROM "${schema}".held WHERE id = 'held' FOR UPDATE NOWAIT`,
    )
    assert.deepEqual(locked, [['held']])
    await holder
    assert.ok(holderFailure !== null, 'the frozen transaction cannot go on once it resumes')
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
