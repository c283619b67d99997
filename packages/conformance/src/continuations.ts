/**
 * continueAsNew at the store: a successor created with `continuedFrom` and the predecessor's
 * finish `continued` naming it, in one batch; `continued` is terminal like the others; a
 * finish that does not say both is refused with nothing applied.
 */
import assert from 'node:assert/strict'
import type { Fence, FinishRunOp, StateStore } from '@cairn/core/contracts'
import { OWNER_B, T0, createdRecord, newRun } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import {
  apply,
  applyOne,
  claim,
  expectApplied,
  expectFenced,
  mustGetRun,
  snapshot,
  startRun,
} from './store_calls.ts'

function continuedFinish(fence: Fence, to: string): FinishRunOp {
  return {
    type: 'finishRun',
    fence,
    status: 'continued',
    output: null,
    error: null,
    continuedTo: to,
  }
}

/** The batch a turn writes to continue run-1 at `at`: the successor, then the finish. */
async function continueBatch(store: StateStore, fence: Fence, at: number) {
  const successor = { ...newRun('run-1~next', { createdAt: at }), continuedFrom: 'run-1' }
  const results = await apply(
    store,
    [{ type: 'createRun', run: successor }, continuedFinish(fence, 'run-1~next')],
    at,
  )
  return { successor, results }
}

async function continueRun(store: StateStore, at: number) {
  const fence = await startRun(store, 'run-1', T0)
  const { successor, results } = await continueBatch(store, fence, at)
  results.forEach((result, i) => expectApplied(result, `op ${i}`))
  return { fence, successor }
}

export function continuationTests(define: Define): void {
  define('a continued finish links both runs; the successor is pending', async (store) => {
    const { successor } = await continueRun(store, T0 + 10)
    const before = await mustGetRun(store, 'run-1')
    assert.equal(before.status, 'continued')
    assert.equal(before.continuedTo, 'run-1~next')
    assert.equal(before.continuedFrom, null)
    assert.equal(before.availableAt, null)
    assert.equal(before.finishedAt, T0 + 10)
    same(await mustGetRun(store, 'run-1~next'), createdRecord(successor, T0 + 10), 'the successor')
    assert.equal((await mustGetRun(store, 'run-1~next')).continuedFrom, 'run-1')
  })

  define('continued is terminal: no write, cancel, message or claim changes it', async (store) => {
    const { fence } = await continueRun(store, T0 + 10)
    const before = await snapshot(store, 'run-1')
    const current = { status: 'continued' as const, epoch: 1 }
    expectFenced(
      await applyOne(store, continuedFinish(fence, 'other'), T0 + 20),
      current,
      'finish again',
    )
    const cancel = await applyOne(
      store,
      { type: 'cancelRun', runId: 'run-1', error: '"x"' },
      T0 + 20,
    )
    same(cancel, { status: 'terminal', current }, 'cancel')
    const message = {
      runId: 'run-1',
      kind: 'signal' as const,
      name: 'go',
      dedupeId: null,
      payload: '1',
    }
    const delivery = await applyOne(store, { type: 'deliverMessage', message }, T0 + 20)
    same(delivery, { status: 'terminal', current }, 'deliver')
    const claimed = await claim(store, { owner: OWNER_B, now: T0 + 10_000_000 })
    assert.deepEqual(
      claimed.claimed.map((run) => run.id),
      ['run-1~next'],
      'only the successor is claimable',
    )
    same(await snapshot(store, 'run-1'), before, 'the continued run')
  })

  define(
    'a finish that names no successor, or names one without continuing, is refused',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      const before = await snapshot(store, 'run-1')
      const unnamed = {
        type: 'finishRun' as const,
        fence,
        status: 'continued' as const,
        output: null,
        error: null,
      }
      await expectRejection(
        () => store.applyBatch([unnamed], T0 + 1),
        'E_INVALID_ARGUMENT',
        'continued without continuedTo',
      )
      const stray = { ...unnamed, status: 'completed' as const, output: '1', continuedTo: 'x' }
      await expectRejection(
        () => store.applyBatch([stray], T0 + 1),
        'E_INVALID_ARGUMENT',
        'completed with continuedTo',
      )
      same(await snapshot(store, 'run-1'), before, 'the run after refused batches')
    },
  )

  define(
    'a fenced continued finish leaves the successor created and the run as it was',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      expectApplied(
        await applyOne(store, { type: 'cancelRun', runId: 'run-1', error: '"x"' }, T0 + 5),
        'cancel',
      )
      const [created, finished] = (await continueBatch(store, fence, T0 + 10)).results
      expectApplied(created, 'createRun')
      expectFenced(finished, { status: 'cancelled', epoch: 2 }, 'finishRun')
      const run = await mustGetRun(store, 'run-1')
      assert.equal(run.status, 'cancelled')
      assert.equal(run.continuedTo, null)
    },
  )
}
