/**
 * parkUnrunnable and unpark: runs no engine can run are parked after a grace period and come
 * back, by reason code, once their version is deployed.
 */
import assert from 'node:assert/strict'
import type { RunRecord, StateStore } from '@cairn/core/contracts'
import {
  BILLING_V1,
  NON_DETERMINISM,
  NOT_REGISTERED,
  ORDERS_V1,
  ORDERS_V2,
  T0,
  checkpoint,
} from './fixtures.ts'
import { same, type Define } from './harness.ts'
import {
  applyOne,
  claim,
  createPending,
  expectFenced,
  finish,
  ids,
  mustGetRun,
  park,
  startRun,
  suspend,
} from './store_calls.ts'

export function parkTests(define: Define): void {
  define(
    'parkUnrunnable parks claimable runs of other versions older than olderThan',
    async (store) => {
      await createPending(store, 'old-pending', T0, ORDERS_V2)
      await createPending(store, 'new-pending', T0 + 100, ORDERS_V2)
      await createPending(store, 'runnable', T0, ORDERS_V1)
      await suspend(
        store,
        await startRun(store, 'due-waiting', T0, { key: ORDERS_V2 }),
        T0 + 10,
        T0 + 1,
      )
      await suspend(
        store,
        await startRun(store, 'idle-waiting', T0, { key: ORDERS_V2 }),
        null,
        T0 + 1,
      )
      await startRun(store, 'live-lease', T0, { key: ORDERS_V2, leaseMs: 1_000 })
      const expired = await startRun(store, 'expired-lease', T0, { key: ORDERS_V2, leaseMs: 20 })
      await finish(store, await startRun(store, 'done', T0, { key: ORDERS_V2 }), T0 + 1)
      const kept = ['new-pending', 'runnable', 'idle-waiting', 'live-lease', 'done']
      const keptBefore = await readAll(store, kept)
      const parkedBefore = await readAll(store, ['old-pending', 'due-waiting', 'expired-lease'])

      const count = await store.parkUnrunnable([ORDERS_V1], T0 + 50, NOT_REGISTERED, T0 + 200)
      assert.equal(count, 3, 'parkUnrunnable count (old-pending, due-waiting, expired-lease)')
      for (const before of parkedBefore) {
        same(
          await mustGetRun(store, before.id),
          {
            ...before,
            status: 'parked',
            parkReason: NOT_REGISTERED,
            availableAt: null,
            waitingOn: null,
            updatedAt: T0 + 200,
          },
          `${before.id} after parkUnrunnable`,
        )
      }
      same(await readAll(store, kept), keptBefore, 'runs parkUnrunnable must leave alone')
      const write = {
        type: 'saveCheckpoint' as const,
        fence: expired,
        checkpoint: checkpoint('expired-lease', 0),
      }
      expectFenced(
        await applyOne(store, write, T0 + 201),
        { status: 'parked', epoch: 1 },
        'the holder of a parked run',
      )
    },
  )

  define('parkUnrunnable parks nothing when every version is runnable', async (store) => {
    await createPending(store, 'run-1', T0, ORDERS_V1)
    await createPending(store, 'run-2', T0, ORDERS_V2)
    assert.equal(
      await store.parkUnrunnable([ORDERS_V2, ORDERS_V1], T0 + 500, NOT_REGISTERED, T0 + 1_000),
      0,
    )
    same(
      (await readAll(store, ['run-1', 'run-2'])).map((run) => run.status),
      ['pending', 'pending'],
      'statuses',
    )
  })

  define(
    'unpark brings back runs parked with the reason code, for the given versions only',
    async (store) => {
      await createPending(store, 'orders-a', T0, ORDERS_V2)
      await createPending(store, 'orders-b', T0 + 1, ORDERS_V2)
      await createPending(store, 'billing', T0, BILLING_V1)
      assert.equal(
        await store.parkUnrunnable([], T0 + 10, NOT_REGISTERED, T0 + 20),
        3,
        'parked by parkUnrunnable',
      )
      await park(
        store,
        await startRun(store, 'diverged', T0, { key: ORDERS_V2 }),
        NON_DETERMINISM,
        T0 + 20,
      )
      const stillParked = await readAll(store, ['billing', 'diverged'])
      const before = await readAll(store, ['orders-a', 'orders-b'])

      assert.equal(
        await store.unpark([ORDERS_V2], NOT_REGISTERED.code, T0 + 500),
        2,
        'unpark count',
      )
      for (const run of before) {
        same(
          await mustGetRun(store, run.id),
          {
            ...run,
            status: 'pending',
            parkReason: null,
            availableAt: T0 + 500,
            updatedAt: T0 + 500,
          },
          `${run.id} after unpark`,
        )
      }
      same(
        await readAll(store, ['billing', 'diverged']),
        stillParked,
        'runs of another version or reason',
      )
      assert.equal(
        await store.unpark([ORDERS_V2], NOT_REGISTERED.code, T0 + 600),
        0,
        'a second unpark',
      )
      const result = await claim(store, { now: T0 + 600, runnable: [ORDERS_V2] })
      same(ids(result.claimed).sort(), ['orders-a', 'orders-b'], 'unparked runs are claimable')
    },
  )
}

async function readAll(store: StateStore, runIds: string[]): Promise<RunRecord[]> {
  const runs: RunRecord[] = []
  for (const id of runIds) runs.push(await mustGetRun(store, id))
  return runs
}
