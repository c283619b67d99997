/**
 * claimRuns, renewLease and reclaimOwned: which runs a claim takes, in what order, what it
 * writes, and that a lease holder who lost its lease is fenced.
 */
import assert from 'node:assert/strict'
import type { StateStore } from '@cairn/core/contracts'
import {
  BILLING_V1,
  LEASE_MS,
  ORDERS_V1,
  ORDERS_V2,
  OWNER_A,
  OWNER_B,
  T0,
  checkpoint,
  createdRecord,
  newRun,
} from './fixtures.ts'
import { same, type Define } from './harness.ts'
import {
  apply,
  applyOne,
  claim,
  createPending,
  expectApplied,
  expectFenced,
  finish,
  ids,
  mustGetRun,
  startRun,
  suspend,
} from './store_calls.ts'

export function claimTests(define: Define): void {
  define(
    'claims the oldest availableAt first, up to limit, and writes the lease',
    async (store) => {
      for (const [id, at] of [
        ['run-c', 30],
        ['run-a', 10],
        ['run-b', 20],
        ['run-d', 40],
      ] as const) {
        await createPending(store, id, T0 + at)
      }
      const result = await claim(store, { owner: OWNER_A, now: T0 + 100, limit: 2 })
      same(ids(result.claimed), ['run-a', 'run-b'], 'claimed runs, oldest availableAt first')
      const expected = {
        ...createdRecord(newRun('run-a', { createdAt: T0 + 10 }), T0 + 10),
        status: 'running' as const,
        updatedAt: T0 + 100,
        availableAt: T0 + 100 + LEASE_MS,
        leaseOwner: OWNER_A,
        leaseEpoch: 1,
        turns: 1,
      }
      same(result.claimed[0], expected, 'the claimed run as returned')
      same(await mustGetRun(store, 'run-a'), expected, 'the claimed run as stored')
      assert.equal(
        result.nextAvailableAt,
        T0 + 30,
        'nextAvailableAt: run-c is due and was left by the limit',
      )
      const rest = await claim(store, { owner: OWNER_A, now: T0 + 100, limit: 10 })
      same(ids(rest.claimed), ['run-c', 'run-d'], 'a second claim takes the rest')
    },
  )

  define(
    'claims only runnable workflow versions and leaves the others untouched',
    async (store) => {
      await createPending(store, 'orders-1', T0, ORDERS_V1)
      await createPending(store, 'orders-2', T0 + 1, ORDERS_V2)
      await createPending(store, 'billing-1', T0 + 2, BILLING_V1)
      const before = await mustGetRun(store, 'orders-1')
      const none = await claim(store, { now: T0 + 10, runnable: [] })
      same(none, { claimed: [], nextAvailableAt: null }, 'a claim with nothing runnable')
      const result = await claim(store, { now: T0 + 10, runnable: [ORDERS_V2, BILLING_V1] })
      same(ids(result.claimed), ['orders-2', 'billing-1'], 'claimed runs')
      assert.equal(
        result.nextAvailableAt,
        null,
        'the unrunnable orders-1 does not count for nextAvailableAt',
      )
      same(await mustGetRun(store, 'orders-1'), before, 'the unrunnable run')
    },
  )

  define(
    'a run becomes claimable exactly at availableAt; nextAvailableAt says when',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      expectApplied(
        await applyOne(store, { type: 'releaseRun', fence, availableAt: T0 + 5_000 }, T0 + 1),
        'releaseRun',
      )
      same(
        await claim(store, { now: T0 + 4_999 }),
        { claimed: [], nextAvailableAt: T0 + 5_000 },
        'claim 1 ms early',
      )
      const due = await claim(store, { owner: OWNER_B, now: T0 + 5_000 })
      same(ids(due.claimed), ['run-1'], 'claim at availableAt')
      assert.equal(due.claimed[0]?.leaseEpoch, 2, 'the second claim must make epoch 2')
      assert.equal(
        due.nextAvailableAt,
        null,
        'a run claimed by this call does not count for nextAvailableAt',
      )
    },
  )

  define(
    'a due timer wakes a waiting run: claimed with epoch + 1, waitingOn cleared',
    async (store) => {
      const fence = await startRun(store, 'run-1', T0)
      await suspend(store, fence, T0 + 1_000, T0 + 5)
      same(
        await claim(store, { owner: OWNER_B, now: T0 + 999 }),
        { claimed: [], nextAvailableAt: T0 + 1_000 },
        'claim before the timer',
      )
      const woken = await claim(store, { owner: OWNER_B, now: T0 + 1_000, leaseMs: 5_000 })
      same(
        woken.claimed,
        [
          {
            ...createdRecord(newRun('run-1'), T0),
            status: 'running',
            updatedAt: T0 + 1_000,
            availableAt: T0 + 6_000,
            leaseOwner: OWNER_B,
            leaseEpoch: 2,
            turns: 2,
          },
        ],
        'the woken run',
      )
    },
  )

  define('a waiting run without a timer is never claimed', async (store) => {
    await suspend(store, await startRun(store, 'run-1', T0), null, T0 + 5)
    const tenYears = 10 * 365 * 24 * 3_600_000
    same(
      await claim(store, { now: T0 + tenYears }),
      { claimed: [], nextAvailableAt: null },
      'claim ten years later',
    )
    same(
      await mustGetRun(store, 'run-1').then((run) => [run.status, run.availableAt]),
      ['waiting', null],
      'the waiting run',
    )
  })

  define(
    'an expired lease is reclaimed with epoch + 1 and turns + 1; the old holder is fenced',
    async (store) => {
      const old = await startRun(store, 'run-1', T0, { owner: OWNER_A, leaseMs: 1_000 })
      same(
        await claim(store, { owner: OWNER_B, now: T0 + 999 }),
        { claimed: [], nextAvailableAt: T0 + 1_000 },
        'claim before expiry',
      )
      const taken = await claim(store, { owner: OWNER_B, now: T0 + 1_000 })
      same(ids(taken.claimed), ['run-1'], 'claim at lease expiry')
      const run = await mustGetRun(store, 'run-1')
      same(
        [run.status, run.leaseOwner, run.leaseEpoch, run.turns],
        ['running', OWNER_B, 2, 2],
        'status, owner, epoch, turns',
      )
      const write = {
        type: 'saveCheckpoint' as const,
        fence: old,
        checkpoint: checkpoint('run-1', 0),
      }
      expectFenced(
        await applyOne(store, write, T0 + 1_001),
        { status: 'running', epoch: 2 },
        'the old holder writing',
      )
      expectApplied(
        await applyOne(store, { ...write, fence: { runId: 'run-1', epoch: 2 } }, T0 + 1_002),
        'the new holder writing',
      )
    },
  )

  define('renewLease pushes the lease expiry to now + leaseMs', async (store) => {
    const fence = await startRun(store, 'run-1', T0, { leaseMs: 1_000 })
    expectApplied(
      await applyOne(store, { type: 'renewLease', fence, leaseMs: 1_000 }, T0 + 900),
      'renewLease',
    )
    const run = await mustGetRun(store, 'run-1')
    same(
      [run.availableAt, run.updatedAt, run.leaseEpoch],
      [T0 + 1_900, T0 + 900, 1],
      'availableAt, updatedAt, epoch',
    )
    same(
      await claim(store, { owner: OWNER_B, now: T0 + 1_500 }),
      { claimed: [], nextAvailableAt: T0 + 1_900 },
      'claim after the old expiry',
    )
  })

  define(
    'nextAvailableAt covers pending, waiting and running runs, and is null when none',
    async (store) => {
      same(
        await claim(store, { now: T0 }),
        { claimed: [], nextAvailableAt: null },
        'claim on an empty store',
      )
      await startRun(store, 'running', T0, { leaseMs: 9_000 })
      same(
        await claim(store, { owner: OWNER_B, now: T0 + 1 }),
        { claimed: [], nextAvailableAt: T0 + 9_000 },
        'a lease expiry counts',
      )
      await suspend(store, await startRun(store, 'waiting', T0), T0 + 7_000, T0 + 2)
      same(
        await claim(store, { owner: OWNER_B, now: T0 + 3 }),
        { claimed: [], nextAvailableAt: T0 + 7_000 },
        'a timer counts',
      )
      const fence = await startRun(store, 'pending', T0)
      await apply(store, [{ type: 'releaseRun', fence, availableAt: T0 + 5_000 }], T0 + 4)
      same(
        await claim(store, { owner: OWNER_B, now: T0 + 5 }),
        { claimed: [], nextAvailableAt: T0 + 5_000 },
        'a pending run counts',
      )
    },
  )

  define('two concurrent claims never return the same run', async (store) => {
    const all = Array.from({ length: 40 }, (_, i) => `run-${String(i).padStart(2, '0')}`)
    for (const [i, id] of all.entries()) await createPending(store, id, T0 + i)
    const [a, b] = await Promise.all([
      claim(store, { owner: OWNER_A, now: T0 + 100, limit: 1_000 }),
      claim(store, { owner: OWNER_B, now: T0 + 100, limit: 1_000 }),
    ])
    const overlap = ids(a.claimed).filter((id) => ids(b.claimed).includes(id))
    same(overlap, [], 'runs returned by both claims')
    same([...ids(a.claimed), ...ids(b.claimed)].sort(), all, 'runs claimed by either')
    for (const [owner, result] of [
      [OWNER_A, a],
      [OWNER_B, b],
    ] as const) {
      for (const run of result.claimed) {
        const stored = await mustGetRun(store, run.id)
        same([stored.leaseOwner, stored.leaseEpoch], [owner, 1], `${run.id}: lease owner and epoch`)
      }
    }
  })

  define('terminal, parked and cancelled runs are never claimed', async (store) => {
    await finish(store, await startRun(store, 'done', T0), T0 + 1)
    await startRun(store, 'cancelled', T0)
    await apply(store, [{ type: 'cancelRun', runId: 'cancelled', error: '"x"' }], T0 + 1)
    await createPending(store, 'cancelled-pending', T0)
    await apply(store, [{ type: 'cancelRun', runId: 'cancelled-pending', error: '"x"' }], T0 + 1)
    const parked = await startRun(store, 'parked', T0)
    await apply(
      store,
      [{ type: 'parkRun', fence: parked, reason: { code: 'X', message: 'x' } }],
      T0 + 1,
    )
    same(
      await claim(store, { now: T0 + 10 * LEASE_MS }),
      { claimed: [], nextAvailableAt: null },
      'claim',
    )
  })

  define('reclaimOwned makes the owner running runs claimable now', async (store) => {
    await startRun(store, 'a-1', T0, { owner: OWNER_A })
    await startRun(store, 'a-2', T0 + 1, { owner: OWNER_A })
    await startRun(store, 'b-1', T0, { owner: OWNER_B })
    await suspend(
      store,
      await startRun(store, 'a-waiting', T0, { owner: OWNER_A }),
      T0 + 50_000,
      T0 + 1,
    )
    const untouched = await Promise.all(['b-1', 'a-waiting'].map((id) => mustGetRun(store, id)))
    assert.equal(await store.reclaimOwned(OWNER_A, T0 + 10), 2, 'reclaimOwned count')
    await reclaimedAt(store, ['a-1', 'a-2'], T0 + 10)
    await store.reclaimOwned(OWNER_A, T0 + 10)
    await reclaimedAt(store, ['a-1', 'a-2'], T0 + 10)
    same(
      await Promise.all(['b-1', 'a-waiting'].map((id) => mustGetRun(store, id))),
      untouched,
      'other runs',
    )
    assert.equal(
      await store.reclaimOwned('engine-z', T0 + 10),
      0,
      'reclaimOwned of an owner with no runs',
    )
    const back = await claim(store, { owner: OWNER_A, now: T0 + 10 })
    const taken = back.claimed.map((run) => [run.id, run.leaseEpoch]).sort()
    same(
      taken,
      [
        ['a-1', 2],
        ['a-2', 2],
      ],
      'runs taken back, epoch + 1',
    )
  })
}

async function reclaimedAt(store: StateStore, runIds: string[], now: number): Promise<void> {
  for (const id of runIds) {
    const run = await mustGetRun(store, id)
    same(
      [run.status, run.availableAt, run.updatedAt, run.leaseOwner, run.leaseEpoch],
      ['running', now, now, OWNER_A, 1],
      `${id} after reclaimOwned: status, availableAt, updatedAt, owner, epoch`,
    )
  }
}
