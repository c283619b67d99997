/**
 * A rolling upgrade and blocked runs: an engine of the version before blocked runs suspends
 * without writing `blocked_epoch`. A run a newer engine suspended `blocked` (an earlier lease
 * epoch) must then read `waiting` — in getRun, the status filter, facets and backlog — never a
 * stale `blocked`. Simulated with the old engine's own statement, on each SQL store.
 */
import assert from 'node:assert/strict'
import type { StateStore } from '@cairn/core/contracts'
import { T0 } from '../../conformance/src/fixtures.ts'
import { applyOne, claim, expectApplied, startRun } from '../../conformance/src/store_calls.ts'
import { oldEngineTests } from './helpers/old_suspend.ts'

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

oldEngineTests('a suspend that writes no blocked_epoch leaves no stale blocked', scenario)
