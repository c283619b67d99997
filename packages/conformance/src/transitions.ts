/**
 * suspendRun, releaseRun, finishRun and parkRun: what each writes to the run, and that a
 * terminal status is absorbing (I5).
 */
import type { RunRecord } from '@cairn/core/contracts'
import {
  FENCED_OPS,
  LEASE_MS,
  NON_DETERMINISM,
  ORDERS_V1,
  OWNER_A,
  OWNER_B,
  T0,
  createdRecord,
  newRun,
} from './fixtures.ts'
import { same, type Define } from './harness.ts'
import {
  applyOne,
  checkpoints,
  claim,
  expectApplied,
  expectFenced,
  mustGetRun,
  snapshot,
  startRun,
} from './store_calls.ts'

/** run-1 as startRun(…, T0) stores it: running, leased to engine-a, epoch 1. */
function started(): RunRecord {
  return createdRecord(newRun('run-1'), T0, { owner: OWNER_A, leaseMs: LEASE_MS })
}

export function transitionTests(define: Define): void {
  define(
    'suspendRun: waiting, availableAt = wakeAt, waitingOn set, lease released',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      const op = {
        type: 'suspendRun' as const,
        fence,
        wakeAt: T0 + 60_000,
        waitingOn: 'sleep until 12:00',
        inboxSeen: 0,
      }
      expectApplied(await applyOne(store, op, T0 + 10), 'suspendRun')
      same(
        await mustGetRun(store, 'run-1'),
        {
          ...started(),
          status: 'waiting',
          availableAt: T0 + 60_000,
          waitingOn: 'sleep until 12:00',
          updatedAt: T0 + 10,
        },
        'the suspended run',
      )
    },
  )

  define('releaseRun: pending, claimable at availableAt', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    expectApplied(
      await applyOne(store, { type: 'releaseRun', fence, availableAt: T0 + 20 }, T0 + 10),
      'releaseRun',
    )
    same(
      await mustGetRun(store, 'run-1'),
      { ...started(), status: 'pending', availableAt: T0 + 20, updatedAt: T0 + 10 },
      'the released run',
    )
    const result = await claim(store, { owner: OWNER_B, now: T0 + 20 })
    same(
      result.claimed.map((run) => [run.id, run.leaseEpoch, run.turns]),
      [['run-1', 2, 2]],
      'claim after release',
    )
  })

  for (const status of ['completed', 'failed', 'cancelled'] as const) {
    define(
      `finishRun ${status}: output and error kept, availableAt null, finishedAt now`,
      async (store) => {
        const fence = await startRun(store, 'run-1', T0)
        const output = status === 'completed' ? '{"total":42}' : null
        const error = status === 'completed' ? null : `{"name":"Error","message":"${status}"}`
        expectApplied(
          await applyOne(store, { type: 'finishRun', fence, status, output, error }, T0 + 10),
          'finishRun',
        )
        same(
          await mustGetRun(store, 'run-1'),
          {
            ...started(),
            status,
            output,
            error,
            availableAt: null,
            finishedAt: T0 + 10,
            updatedAt: T0 + 10,
          },
          `the ${status} run`,
        )
      },
    )
  }

  define('parkRun: parked with its reason, availableAt null', async (store) => {
    const fence = await startRun(store, 'run-1', T0)
    expectApplied(
      await applyOne(store, { type: 'parkRun', fence, reason: NON_DETERMINISM }, T0 + 10),
      'parkRun',
    )
    same(
      await mustGetRun(store, 'run-1'),
      {
        ...started(),
        status: 'parked',
        parkReason: NON_DETERMINISM,
        availableAt: null,
        updatedAt: T0 + 10,
      },
      'the parked run',
    )
  })

  define(
    'terminal is absorbing: every later write, cancel, claim or park changes nothing',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      const finishOp = {
        type: 'finishRun' as const,
        fence,
        status: 'completed' as const,
        output: '"ok"',
        error: null,
      }
      expectApplied(await applyOne(store, finishOp, T0 + 10), 'first finishRun')
      const before = await snapshot(store, 'run-1')
      const current = { status: 'completed' as const, epoch: 1 }
      expectFenced(
        await applyOne(store, { ...finishOp, status: 'failed' }, T0 + 20),
        current,
        'second finishRun',
      )
      for (const { type, op } of FENCED_OPS) {
        expectFenced(
          await applyOne(store, op('run-1', 1), T0 + 20),
          current,
          `${type} after finishRun`,
        )
      }
      const cancel = await applyOne(
        store,
        { type: 'cancelRun', runId: 'run-1', error: '"x"' },
        T0 + 20,
      )
      same(cancel, { status: 'terminal', current }, 'cancelRun of a completed run')
      same(
        await claim(store, { now: T0 + 10 * LEASE_MS }),
        { claimed: [], nextAvailableAt: null },
        'claim',
      )
      same(
        await store.parkUnrunnable([], T0 + 10 * LEASE_MS, NON_DETERMINISM, T0 + 20),
        0,
        'parkUnrunnable count',
      )
      same(await store.unpark([ORDERS_V1], NON_DETERMINISM.code, T0 + 20), 0, 'unpark count')
      same(await store.reclaimOwned(OWNER_A, T0 + 20), 0, 'reclaimOwned count')
      same(await snapshot(store, 'run-1'), before, 'the completed run after all of that')
      same(await checkpoints(store, 'run-1'), [], 'checkpoints of the completed run')
    },
  )
}
