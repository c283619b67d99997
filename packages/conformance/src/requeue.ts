/**
 * requeueRun: a failed run at the epoch read goes back to pending, its failed checkpoints at
 * the given positions removed and everything else kept; any other run is refused unchanged.
 */
import assert from 'node:assert/strict'
import type { CheckpointRecord, RunRecord, StateStore, StoreOp } from '@cairn/core/contracts'
import { FENCED_OPS, LEASE_MS, OWNER_A, T0, checkpoint, createdRecord, newRun } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import {
  applyOne,
  checkpoints,
  claim,
  createPending,
  expectApplied,
  expectFenced,
  finish,
  mustGetRun,
  save,
  snapshot,
  startRun,
} from './store_calls.ts'

const ERROR = '{"name":"Error","message":"card declined"}'
const FENCE = { runId: 'run-1', epoch: 1 }

/** A run with a completed step at 0, a caught failure at 1, a failure at 2, then failed. */
async function failedRun(store: StateStore): Promise<{ run: RunRecord; kept: CheckpointRecord[] }> {
  await startRun(store, 'run-1', T0)
  const done = checkpoint('run-1', 0, { updatedAt: T0 + 1 })
  const caught = checkpoint('run-1', 1, { status: 'failed', output: null, error: ERROR })
  const failed = checkpoint('run-1', 2, { status: 'failed', output: null, error: ERROR })
  for (const cp of [done, caught, failed]) await save(store, FENCE, cp, T0 + 1)
  const op: StoreOp = {
    type: 'finishRun',
    fence: FENCE,
    status: 'failed',
    output: null,
    error: ERROR,
  }
  expectApplied(await applyOne(store, op, T0 + 2), 'finishRun failed')
  return { run: await mustGetRun(store, 'run-1'), kept: [done, caught] }
}

function requeue(store: StateStore, resetSeqs: number[], now: number, epoch = 1) {
  return store.requeueRun({ runId: 'run-1', epoch, resetSeqs, now })
}

export function requeueTests(define: Define): void {
  define('a failed run becomes pending: error cleared, epoch + 1, claimable now', async (store) => {
    const { run, kept } = await failedRun(store)
    same(
      await requeue(store, [2], T0 + 100),
      { status: 'applied', epoch: 2, positionsReset: 1 },
      'requeueRun',
    )
    const expected: RunRecord = {
      ...run,
      status: 'pending',
      error: null,
      finishedAt: null,
      availableAt: T0 + 100,
      updatedAt: T0 + 100,
      leaseEpoch: 2,
    }
    same(await mustGetRun(store, 'run-1'), expected, 'the requeued run')
    same(await checkpoints(store, 'run-1'), kept, 'checkpoints: only position 2 removed')
    const claimed = await claim(store, { now: T0 + 100 })
    same(
      claimed.claimed.map((r) => [r.id, r.leaseEpoch]),
      [['run-1', 3]],
      'claimed at once',
    )
  })

  define('only failed checkpoints at the given positions are removed', async (store) => {
    const { kept } = await failedRun(store)
    // 0 is completed, 7 holds nothing: neither is touched nor counted.
    same(
      await requeue(store, [0, 7], T0 + 100),
      { status: 'applied', epoch: 2, positionsReset: 0 },
      'requeueRun naming no failed position',
    )
    same(await checkpoints(store, 'run-1'), [...kept, failedRunCheckpoint()], 'all kept')
  })

  define('no position to reset: the run is requeued with its whole history', async (store) => {
    await failedRun(store)
    const before = await checkpoints(store, 'run-1')
    same(
      await requeue(store, [], T0 + 100),
      { status: 'applied', epoch: 2, positionsReset: 0 },
      'requeueRun',
    )
    same(await checkpoints(store, 'run-1'), before, 'checkpoints')
    assert.equal((await mustGetRun(store, 'run-1')).status, 'pending')
  })

  define('the holder of an earlier lease cannot write after a requeue', async (store) => {
    await failedRun(store)
    await requeue(store, [2], T0 + 100)
    const after = await snapshot(store, 'run-1')
    for (const { type, op } of FENCED_OPS) {
      const result = await applyOne(store, op('run-1', 1), T0 + 110)
      expectFenced(result, { status: 'pending', epoch: 2 }, `${type} at the failed epoch`)
    }
    await claim(store, { now: T0 + 120 })
    for (const epoch of [1, 2]) {
      const write: StoreOp = {
        type: 'saveCheckpoint',
        fence: { runId: 'run-1', epoch },
        checkpoint: checkpoint('run-1', 2),
      }
      const result = await applyOne(store, write, T0 + 130)
      expectFenced(result, { status: 'running', epoch: 3 }, `saveCheckpoint at epoch ${epoch}`)
    }
    same((await snapshot(store, 'run-1')).checkpoints, after.checkpoints, 'checkpoints')
  })

  define('two requeues of one epoch: one applies, the other is refused', async (store) => {
    await failedRun(store)
    const results = await Promise.all([
      requeue(store, [2], T0 + 100),
      requeue(store, [2], T0 + 100),
    ])
    const applied = results.filter((r) => r.status === 'applied')
    same(applied, [{ status: 'applied', epoch: 2, positionsReset: 1 }], 'applied once')
    same(
      results.filter((r) => r.status !== 'applied'),
      [{ status: 'refused', current: { status: 'pending', epoch: 2 } }],
      'the other',
    )
  })

  define('a stale epoch is refused: the run was requeued and failed again', async (store) => {
    await failedRun(store)
    await requeue(store, [2], T0 + 100)
    await claim(store, { now: T0 + 100 })
    const op: StoreOp = {
      type: 'finishRun',
      fence: { runId: 'run-1', epoch: 3 },
      status: 'failed',
      output: null,
      error: ERROR,
    }
    expectApplied(await applyOne(store, op, T0 + 200), 'failed again')
    const before = await snapshot(store, 'run-1')
    same(
      await requeue(store, [1], T0 + 300, 1),
      { status: 'refused', current: { status: 'failed', epoch: 3 } },
      'requeue planned at the first failure',
    )
    same(await snapshot(store, 'run-1'), before, 'nothing changed')
  })

  define('runs that are not failed are refused and unchanged', async (store) => {
    await createPending(store, 'pending', T0)
    await startRun(store, 'running', T0)
    await finish(store, await startRun(store, 'completed', T0), T0 + 1)
    await startRun(store, 'cancelled', T0)
    const cancel: StoreOp = { type: 'cancelRun', runId: 'cancelled', error: ERROR }
    expectApplied(await applyOne(store, cancel, T0 + 1), 'cancelRun')
    const expected = { pending: 0, running: 1, completed: 1, cancelled: 2 }
    for (const [id, epoch] of Object.entries(expected)) {
      const before = await snapshot(store, id)
      same(
        await store.requeueRun({ runId: id, epoch, resetSeqs: [], now: T0 + 10 }),
        { status: 'refused', current: { status: id, epoch } },
        `requeueRun of a ${id} run`,
      )
      same(await snapshot(store, id), before, `the ${id} run`)
    }
  })

  define('an unknown run is not_found and nothing is created', async (store) => {
    same(
      await store.requeueRun({ runId: 'nope', epoch: 0, resetSeqs: [0], now: T0 }),
      { status: 'not_found' },
      'requeueRun',
    )
    assert.equal(await store.getRun('nope'), null)
  })

  define(
    'malformed positions or epoch are refused with E_INVALID_ARGUMENT, nothing applied',
    async (store) => {
      await failedRun(store)
      const before = await snapshot(store, 'run-1')
      const bad = [[-1], [1.5], [Number.NaN], [2, 2], Array.from({ length: 1001 }, (_, i) => i)]
      for (const resetSeqs of bad) {
        await expectRejection(
          () => requeue(store, resetSeqs, T0 + 100),
          'E_INVALID_ARGUMENT',
          `resetSeqs ${JSON.stringify(resetSeqs).slice(0, 40)}`,
        )
      }
      for (const epoch of [-1, 1.5]) {
        await expectRejection(
          () => requeue(store, [2], T0 + 100, epoch),
          'E_INVALID_ARGUMENT',
          `epoch ${epoch}`,
        )
      }
      same(await snapshot(store, 'run-1'), before, 'the failed run')
    },
  )

  define('a requeued child keeps its parent link', async (store) => {
    const child = { ...newRun('child'), parent: { runId: 'parent', seq: 4 } }
    const create: StoreOp = {
      type: 'createRun',
      run: child,
      claim: { owner: OWNER_A, leaseMs: LEASE_MS },
    }
    expectApplied(await applyOne(store, create, T0), 'createRun child')
    const fence = { runId: 'child', epoch: 1 }
    const fail: StoreOp = { type: 'finishRun', fence, status: 'failed', output: null, error: ERROR }
    expectApplied(await applyOne(store, fail, T0 + 1), 'finishRun child')
    await store.requeueRun({ runId: 'child', epoch: 1, resetSeqs: [], now: T0 + 2 })
    const run = await mustGetRun(store, 'child')
    const created = createdRecord(child, T0, { owner: OWNER_A, leaseMs: LEASE_MS })
    same(
      [run.parentRunId, run.parentSeq, run.status],
      [created.parentRunId, created.parentSeq, 'pending'],
      'parent link of the requeued child',
    )
  })
}

function failedRunCheckpoint(): CheckpointRecord {
  return checkpoint('run-1', 2, { status: 'failed', output: null, error: ERROR })
}
