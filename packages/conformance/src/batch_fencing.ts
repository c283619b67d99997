/**
 * applyBatch and fencing: ops apply in order, each is fenced or conditioned on its own, and
 * a write under a lost lease changes nothing (I3).
 */
import assert from 'node:assert/strict'
import type { Fence, StateStore } from '@cairn/core/contracts'
import {
  FENCED_OPS,
  LEASE_MS,
  NON_DETERMINISM,
  OWNER_A,
  T0,
  checkpoint,
  newRun,
} from './fixtures.ts'
import { same, type Define } from './harness.ts'
import {
  apply,
  applyOne,
  checkpoints,
  expectApplied,
  expectFenced,
  finish,
  mustGetRun,
  park,
  snapshot,
  startRun,
  suspend,
} from './store_calls.ts'

export function batchFencingTests(define: Define): void {
  define('ops of one batch apply in order', async (store) => {
    const fence = { runId: 'run-1', epoch: 1 }
    const cp = checkpoint('run-1', 0)
    const results = await apply(
      store,
      [
        { type: 'createRun', run: newRun('run-1'), claim: { owner: OWNER_A, leaseMs: LEASE_MS } },
        { type: 'saveCheckpoint', fence, checkpoint: cp },
        { type: 'finishRun', fence, status: 'completed', output: '"done"', error: null },
        { type: 'saveCheckpoint', fence, checkpoint: checkpoint('run-1', 1) },
      ],
      T0,
    )
    same(results[0], { status: 'applied', epoch: 1 }, 'createRun result')
    expectApplied(results[1], 'saveCheckpoint after createRun in the same batch')
    expectApplied(results[2], 'finishRun after saveCheckpoint in the same batch')
    expectFenced(
      results[3],
      { status: 'completed', epoch: 1 },
      'saveCheckpoint after finishRun in the same batch',
    )
    assert.equal((await mustGetRun(store, 'run-1')).status, 'completed')
    same(await checkpoints(store, 'run-1'), [cp], 'checkpoints of the batch')
  })

  define('an op that does not apply never aborts the others', async (store) => {
    const a = await startRun(store, 'run-a', T0)
    await finish(store, await startRun(store, 'run-b', T0), T0 + 1)
    const cp = checkpoint('run-a', 0)
    const results = await apply(
      store,
      [
        { type: 'saveCheckpoint', fence: { runId: 'run-a', epoch: 2 }, checkpoint: cp },
        { type: 'createRun', run: newRun('run-c') },
        { type: 'saveCheckpoint', fence: a, checkpoint: cp },
        {
          type: 'finishRun',
          fence: { runId: 'run-b', epoch: 1 },
          status: 'failed',
          output: null,
          error: '"x"',
        },
        { type: 'cancelRun', runId: 'no-such-run', error: '"cancelled"' },
        { type: 'createRun', run: newRun('run-a') },
        { type: 'saveCheckpoint', fence: a, checkpoint: { ...cp, output: '"second"' } },
        { type: 'renewLease', fence: a, leaseMs: 60_000 },
      ],
      T0 + 10,
    )
    const runA = await mustGetRun(store, 'run-a')
    expectFenced(results[0], { status: 'running', epoch: 1 }, 'op 0 (stale epoch)')
    same(results[1], { status: 'applied', epoch: 0 }, 'op 1 (createRun run-c)')
    expectApplied(results[2], 'op 2 (saveCheckpoint)')
    expectFenced(results[3], { status: 'completed', epoch: 1 }, 'op 3 (finish of a finished run)')
    same(results[4], { status: 'not_found' }, 'op 4 (cancel of an unknown run)')
    assert.equal(results[5]?.status, 'exists', 'op 5 (createRun of an existing run)')
    same(
      results[6],
      { status: 'conflict', existing: cp },
      'op 6 (second write of a completed checkpoint)',
    )
    expectApplied(results[7], 'op 7 (renewLease)')
    same(await checkpoints(store, 'run-a'), [cp], 'checkpoints of run-a')
    assert.equal(runA.availableAt, T0 + 10 + 60_000, 'renewLease in the batch must apply')
    assert.equal((await mustGetRun(store, 'run-c')).status, 'pending', 'run-c must be created')
    assert.equal(
      (await mustGetRun(store, 'run-b')).status,
      'completed',
      'run-b must stay completed',
    )
  })

  for (const { type, op } of FENCED_OPS) {
    define(`${type} with a stale or future epoch is fenced and changes nothing`, async (store) => {
      await runningWithRetryingCheckpoint(store, 'run-1')
      const before = await snapshot(store, 'run-1')
      for (const epoch of [0, 2]) {
        const result = await applyOne(store, op('run-1', epoch), T0 + 100)
        expectFenced(result, { status: 'running', epoch: 1 }, `${type} under epoch ${epoch}`)
        same(await snapshot(store, 'run-1'), before, `run and checkpoints after a fenced ${type}`)
      }
    })
  }

  define(
    'every fenced op on a run that is not running is fenced and changes nothing',
    async (store) => {
      for (const [status, setUp] of NOT_RUNNING) {
        for (const { type, op } of FENCED_OPS) {
          // The one write a cancelled run takes at its epoch: a late outcome (cancel.ts).
          if (status === 'cancelled' && type === 'saveCheckpoint') continue
          const runId = `${status}-${type}`
          const fence = await setUp(store, runId)
          const before = await snapshot(store, runId)
          const current = { status: before.run?.status, epoch: fence.epoch }
          const result = await applyOne(store, op(runId, fence.epoch), T0 + 100)
          same(
            result,
            { status: 'fenced', current },
            `${type} on a ${status} run under its own epoch`,
          )
          same(await snapshot(store, runId), before, `${status} run after a fenced ${type}`)
        }
      }
    },
  )

  define('every fenced op on an unknown run is fenced with current null', async (store) => {
    for (const { type, op } of FENCED_OPS) {
      expectFenced(
        await applyOne(store, op('no-such-run', 1), T0),
        null,
        `${type} on an unknown run`,
      )
    }
    assert.equal(await store.getRun('no-such-run'), null, 'a fenced op must not create the run')
    same(await store.loadCheckpoints('no-such-run'), [], 'a fenced op must not write checkpoints')
  })
}

/** A running run (epoch 1) whose seq 0 is `retrying`, so a saveCheckpoint at seq 0 could apply. */
async function runningWithRetryingCheckpoint(store: StateStore, runId: string): Promise<Fence> {
  const fence = await startRun(store, runId, T0)
  const retrying = checkpoint(runId, 0, {
    status: 'retrying',
    order: null,
    output: null,
    wakeAt: T0 + 50,
  })
  await apply(store, [{ type: 'saveCheckpoint', fence, checkpoint: retrying }], T0 + 1)
  return fence
}

type SetUp = (store: StateStore, runId: string) => Promise<Fence>

/** Ways to leave a run not running; each returns the fence its last holder had. */
const NOT_RUNNING: ReadonlyArray<[string, SetUp]> = [
  [
    'pending',
    async (store, runId) => {
      const fence = await runningWithRetryingCheckpoint(store, runId)
      await apply(store, [{ type: 'releaseRun', fence, availableAt: T0 + 10 }], T0 + 2)
      return fence
    },
  ],
  [
    'waiting',
    async (store, runId) => {
      const fence = await runningWithRetryingCheckpoint(store, runId)
      await suspend(store, fence, T0 + 10, T0 + 2)
      return fence
    },
  ],
  [
    'parked',
    async (store, runId) => {
      const fence = await runningWithRetryingCheckpoint(store, runId)
      await park(store, fence, NON_DETERMINISM, T0 + 2)
      return fence
    },
  ],
  [
    'completed',
    async (store, runId) => {
      const fence = await runningWithRetryingCheckpoint(store, runId)
      await finish(store, fence, T0 + 2)
      return fence
    },
  ],
  [
    'cancelled',
    async (store, runId) => {
      await runningWithRetryingCheckpoint(store, runId)
      await apply(store, [{ type: 'cancelRun', runId, error: '"cancelled"' }], T0 + 2)
      // Cancelling moved the epoch on: the fence the suite checks against is the new one.
      return { runId, epoch: 2 }
    },
  ],
]
