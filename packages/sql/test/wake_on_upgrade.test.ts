/**
 * A rolling upgrade: engines of the version before wake filters keep running on a schema that
 * has them, and their suspend writes no `wake_on`. The names an earlier suspend of the run
 * wrote (a newer engine, an earlier lease epoch) must then not filter its deliveries — else a
 * signal the old engine's wait takes would be stored and never wake the run. Simulated with
 * the old engine's own statement (a suspend that leaves wake_on alone), on each SQL store.
 */
import assert from 'node:assert/strict'
import type { StateStore } from '@cairn/core/contracts'
import { T0 } from '../../conformance/src/fixtures.ts'
import { applyOne, claim, expectApplied, startRun } from '../../conformance/src/store_calls.ts'
import { oldEngineTests } from './helpers/old_suspend.ts'

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

oldEngineTests('a suspend that writes no wake_on leaves no stale filter', scenario)
