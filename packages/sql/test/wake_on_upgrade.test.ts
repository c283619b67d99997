/**
 * A rolling upgrade: engines of the version before wake filters keep running on a schema that
 * has them, and their suspend writes no `wake_on`. The names an earlier suspend of the run
 * wrote (a newer engine, an earlier lease epoch) must then not filter its deliveries — else a
 * signal the old engine's wait takes would be stored and never wake the run. Simulated with
 * the old engine's own statement (a suspend that leaves wake_on alone), on each SQL store.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { DatabaseSync } from 'node:sqlite'
import type { StateStore } from '@cairn/core/contracts'
import { createSqliteStore } from '@cairn/sql/sqlite'
import { T0 } from '../../conformance/src/fixtures.ts'
import { applyOne, claim, expectApplied, startRun } from '../../conformance/src/store_calls.ts'
import { poolOfStore as mysqlPools } from '../src/mysql/debug_access.ts'
import { poolOfStore as postgresPools } from '../src/postgres/debug_access.ts'
import type { SqlPool } from '../src/shared/driver.ts'
import { connectionOfStore } from '../src/sqlite/debug_access.ts'
import { makeTempDir } from './helpers/temp_dir.ts'
import { mysqlTest, storeInFreshDatabase } from './helpers/mysql.ts'
import { pgTest, storeInFreshSchema } from './helpers/postgres.ts'

const deliver = (name: string) => ({
  type: 'deliverMessage' as const,
  message: { runId: 'run-1', kind: 'signal' as const, name, dedupeId: null, payload: '1' },
})

async function availableAt(store: StateStore): Promise<number | null> {
  return (await store.getRun('run-1'))?.availableAt ?? null
}

/** `oldSuspend(runId)`: the previous version's suspend of a running run, without wake_on. */
async function scenario(store: StateStore, oldSuspend: (runId: string) => Promise<void>) {
  const fence = await startRun(store, 'run-1', T0)
  const suspend = {
    type: 'suspendRun' as const,
    fence,
    wakeAt: null,
    waitingOn: 'signal "a"',
    inboxSeen: 0,
    wakeOn: ['a'],
  }
  expectApplied(await applyOne(store, suspend, T0 + 1), 'the new engine suspends on "a"')
  await applyOne(store, deliver('b'), T0 + 2)
  assert.equal(await availableAt(store), null, '"b" does not wake it (the filter works)')
  await applyOne(store, deliver('a'), T0 + 3)
  const claimed = await claim(store, { now: T0 + 4 })
  assert.deepEqual(
    claimed.claimed.map((r) => r.id),
    ['run-1'],
  )
  await oldSuspend('run-1')
  await applyOne(store, deliver('b'), T0 + 5)
  assert.equal(await availableAt(store), T0 + 5, 'the old engine waits on "b": it must wake')
}

void test('sqlite: a suspend that writes no wake_on leaves no stale filter', async () => {
  const dir = await makeTempDir()
  const store = createSqliteStore({ path: dir.file('cairn.db') })
  try {
    await store.open()
    const db = connectionOfStore.get(store) as DatabaseSync
    await scenario(store, async (runId) => {
      db.prepare(
        `UPDATE cairn_runs SET status = 'waiting', available_at = NULL, waiting_on = 'old' WHERE id = ?`,
      ).run(runId)
    })
  } finally {
    await store.close()
    await dir.remove()
  }
})

pgTest('postgres: a suspend that writes no wake_on leaves no stale filter', async () => {
  const { store, schema, cleanup } = storeInFreshSchema()
  try {
    await store.open()
    const pool = postgresPools.get(store) as SqlPool
    await scenario(store, async (runId) => {
      await pool.query({
        text: `UPDATE "${schema}".cairn_runs SET status = 'waiting', available_at = NULL, waiting_on = 'old' WHERE id = $1`,
        values: [runId],
      })
    })
  } finally {
    await store.close()
    await cleanup()
  }
})

mysqlTest('mysql: a suspend that writes no wake_on leaves no stale filter', async () => {
  const { store, database, cleanup } = storeInFreshDatabase()
  try {
    await store.open()
    const pool = mysqlPools.get(store) as SqlPool
    await scenario(store, async (runId) => {
      await pool.query({
        text: `UPDATE \`${database}\`.cairn_runs SET status = 'waiting', available_at = NULL, waiting_on = 'old' WHERE id = ?`,
        values: [runId],
      })
    })
  } finally {
    await store.close()
    await cleanup()
  }
})
