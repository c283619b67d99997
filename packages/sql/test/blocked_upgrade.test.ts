/**
 * A rolling upgrade and blocked runs: an engine of the version before blocked runs suspends
 * without writing `blocked_epoch`. A run a newer engine suspended `blocked` (an earlier lease
 * epoch) must then read `waiting` — in getRun, the status filter, facets and backlog — never a
 * stale `blocked`. Simulated with the old engine's own statement, on each SQL store.
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

/** `oldSuspend(runId)`: the previous version's suspend of a running run, without blocked_epoch. */
async function scenario(store: StateStore, oldSuspend: (runId: string) => Promise<void>) {
  const fence = await startRun(store, 'run-1', T0)
  const suspend = {
    type: 'suspendRun' as const,
    fence,
    wakeAt: T0 + 10,
    waitingOn: 'step "render" blocked: no live worker on transport "db"',
    inboxSeen: 0,
    blocked: true,
  }
  expectApplied(await applyOne(store, suspend, T0 + 1), 'the new engine suspends blocked')
  assert.equal((await store.getRun('run-1'))?.status, 'blocked')
  const claimed = await claim(store, { now: T0 + 10 })
  assert.deepEqual(
    claimed.claimed.map((r) => r.id),
    ['run-1'],
  )
  await oldSuspend('run-1')
  assert.equal((await store.getRun('run-1'))?.status, 'waiting', 'a stale blocked mark')
  assert.deepEqual((await store.listRuns({ status: 'blocked' })).runs, [])
  assert.deepEqual(
    (await store.listRuns({ status: 'waiting' })).runs.map((r) => r.id),
    ['run-1'],
  )
  assert.deepEqual((await store.facetRuns({})).byStatus, { waiting: 1 })
  const backlog = await store.backlog(T0 + 20)
  assert.deepEqual([backlog.waiting, backlog.blocked], [1, 0])
}

void test('sqlite: a suspend that writes no blocked_epoch leaves no stale blocked', async () => {
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

/** The old engine's suspend on a server store, through the store's own pool. */
async function onServer(
  made: { store: StateStore; cleanup(): Promise<void> },
  pool: (store: StateStore) => SqlPool,
  table: string,
  placeholder: string,
): Promise<void> {
  const { store, cleanup } = made
  try {
    await store.open()
    await scenario(store, async (runId) => {
      await pool(store).query({
        text: `UPDATE ${table} SET status = 'waiting', available_at = NULL, waiting_on = 'old' WHERE id = ${placeholder}`,
        values: [runId],
      })
    })
  } finally {
    await store.close()
    await cleanup()
  }
}

pgTest('postgres: a suspend that writes no blocked_epoch leaves no stale blocked', async () => {
  const made = storeInFreshSchema()
  const pool = (store: StateStore) => postgresPools.get(store) as SqlPool
  await onServer(made, pool, `"${made.schema}".cairn_runs`, '$1')
})

mysqlTest('mysql: a suspend that writes no blocked_epoch leaves no stale blocked', async () => {
  const made = storeInFreshDatabase()
  const pool = (store: StateStore) => mysqlPools.get(store) as SqlPool
  await onServer(made, pool, `\`${made.database}\`.cairn_runs`, '?')
})
