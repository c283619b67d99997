/** cancelRun: any run not terminal is cancelled with a new epoch; terminal and unknown runs are reported. */
import assert from 'node:assert/strict'
import type { RunRecord, StateStore } from '@cairn/core/contracts'
import {
  FENCED_OPS,
  LEASE_MS,
  NON_DETERMINISM,
  OWNER_A,
  T0,
  checkpoint,
  createdRecord,
  newRun,
} from './fixtures.ts'
import { same, type Define } from './harness.ts'
import {
  applyOne,
  claim,
  createPending,
  expectApplied,
  expectFenced,
  finish,
  mustGetRun,
  park,
  snapshot,
  startRun,
  suspend,
} from './store_calls.ts'

const ERROR = '{"name":"CancelledError","message":"run cancelled","code":"E_RUN_CANCELLED"}'

async function cancel(store: StateStore, runId: string, now: number) {
  return applyOne(store, { type: 'cancelRun', runId, error: ERROR }, now)
}

/** What a cancelled run must look like, given the record it had. */
function cancelledFrom(run: RunRecord, now: number): RunRecord {
  return {
    ...run,
    status: 'cancelled',
    error: ERROR,
    availableAt: null,
    finishedAt: now,
    updatedAt: now,
    waitingOn: null,
    parkReason: null,
    leaseEpoch: run.leaseEpoch + 1,
  }
}

const STARTED = createdRecord(newRun('run-1'), T0, { owner: OWNER_A, leaseMs: LEASE_MS })

export function cancelTests(define: Define): void {
  define('cancelRun of a pending run: cancelled, epoch 0 → 1', async (store) => {
    const pending = await createPending(store, 'run-1', T0)
    expectApplied(await cancel(store, 'run-1', T0 + 10), 'cancelRun')
    same(await mustGetRun(store, 'run-1'), cancelledFrom(pending, T0 + 10), 'the cancelled run')
    assert.equal(
      (await mustGetRun(store, 'run-1')).leaseEpoch,
      1,
      'epoch after cancelling a never-claimed run',
    )
  })

  define('cancelRun of a waiting run: cancelled, waitingOn cleared, epoch + 1', async (store) => {
    await suspend(store, await startRun(store, 'run-1', T0), T0 + 60_000, T0 + 5)
    expectApplied(await cancel(store, 'run-1', T0 + 10), 'cancelRun')
    same(await mustGetRun(store, 'run-1'), cancelledFrom(STARTED, T0 + 10), 'the cancelled run')
  })

  define('cancelRun of a running run fences every later write of the holder', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    expectApplied(await cancel(store, 'run-1', T0 + 10), 'cancelRun')
    const cancelled = cancelledFrom(STARTED, T0 + 10)
    same(await mustGetRun(store, 'run-1'), cancelled, 'the cancelled run')
    for (const { type, op } of FENCED_OPS) {
      const result = await applyOne(store, op('run-1', fence.epoch), T0 + 20)
      expectFenced(
        result,
        { status: 'cancelled', epoch: 2 },
        `${type} by the holder after cancelRun`,
      )
    }
    same(
      await snapshot(store, 'run-1'),
      { run: cancelled, checkpoints: [] },
      'the run after the fenced writes',
    )
  })

  define(
    "a cancelled run records a late outcome at the cancel's epoch; nothing else changes",
    async (store) => {
      await startRun(store, 'run-1', T0)
      expectApplied(await cancel(store, 'run-1', T0 + 10), 'cancelRun')
      const late = checkpoint('run-1', 0, { order: null, updatedAt: T0 + 20 })
      const at = { runId: 'run-1', epoch: 2 }
      expectApplied(
        await applyOne(store, { type: 'saveCheckpoint', fence: at, checkpoint: late }, T0 + 20),
        'late saveCheckpoint at the new epoch',
      )
      const again = { ...late, output: '"changed"' }
      const conflict = await applyOne(
        store,
        { type: 'saveCheckpoint', fence: at, checkpoint: again },
        T0 + 30,
      )
      same(conflict, { status: 'conflict', existing: late }, 'a recorded late outcome wins')
      const cancelled = cancelledFrom(STARTED, T0 + 10)
      same(await snapshot(store, 'run-1'), { run: cancelled, checkpoints: [late] }, 'the run')
      // Other writes at that epoch stay refused: the run is terminal.
      for (const { type, op } of FENCED_OPS.filter((f) => f.type !== 'saveCheckpoint')) {
        const result = await applyOne(store, op('run-1', 2), T0 + 40)
        expectFenced(result, { status: 'cancelled', epoch: 2 }, `${type} at the new epoch`)
      }
    },
  )

  define('cancelRun of a parked run: cancelled, parkReason cleared', async (store) => {
    await park(store, await startRun(store, 'run-1', T0), NON_DETERMINISM, T0 + 5)
    expectApplied(await cancel(store, 'run-1', T0 + 10), 'cancelRun')
    same(await mustGetRun(store, 'run-1'), cancelledFrom(STARTED, T0 + 10), 'the cancelled run')
  })

  define('cancelRun of a terminal run reports terminal and changes nothing', async (store) => {
    await finish(store, await startRun(store, 'done', T0), T0 + 5)
    const done = await snapshot(store, 'done')
    same(
      await cancel(store, 'done', T0 + 10),
      { status: 'terminal', current: { status: 'completed', epoch: 1 } },
      'cancel of a completed run',
    )
    same(await snapshot(store, 'done'), done, 'the completed run')
    await startRun(store, 'twice', T0)
    expectApplied(await cancel(store, 'twice', T0 + 10), 'first cancelRun')
    const once = await snapshot(store, 'twice')
    same(
      await cancel(store, 'twice', T0 + 20),
      { status: 'terminal', current: { status: 'cancelled', epoch: 2 } },
      'second cancelRun',
    )
    same(await snapshot(store, 'twice'), once, 'the run cancelled twice')
  })

  define('cancelRun of an unknown run reports not_found and creates nothing', async (store) => {
    same(await cancel(store, 'no-such-run', T0), { status: 'not_found' }, 'cancelRun result')
    assert.equal(await store.getRun('no-such-run'), null, 'cancelRun must not create the run')
  })

  define('a cancelled run is never claimed', async (store) => {
    await createPending(store, 'run-1', T0)
    await cancel(store, 'run-1', T0 + 1)
    same(
      await claim(store, { now: T0 + 10 * LEASE_MS }),
      { claimed: [], nextAvailableAt: null },
      'claim',
    )
  })
}
