/**
 * RunRecord.recoveries and the `dead` status. A claim of a `running` run (its lease lapsed, or
 * reclaimOwned handed it back) is a takeover and adds 1; a claim of a pending or waiting run
 * leaves it; a suspend, a release, a requeue, an unpark and a renewal reporting progress set
 * it to 0; nothing else changes it. A run the engine gives up on ends `dead` through an
 * ordinary finishRun, and from then on is terminal exactly like a failed one: fenced, refusing
 * messages and cancels, its notice delivered, its singleton slot and queue slots freed, found
 * by listRuns, and requeued by an operator like a failed run.
 */
import assert from 'node:assert/strict'
import type { Fence, OpResult, StateStore, StoreOp } from '@cairn/core/contracts'
import { LEASE_MS, NON_DETERMINISM, ORDERS_V1, OWNER_A, OWNER_B, T0, newRun } from './fixtures.ts'
import { same, type Define } from './harness.ts'
import {
  applyOne,
  claim,
  createPending,
  expectApplied,
  expectFenced,
  list,
  mustGetRun,
  save,
  startRun,
  suspend,
} from './store_calls.ts'
import { checkpoint } from './fixtures.ts'
import { Q, grantedAmong, line, ownGrants, stats, unrated } from './queue_fixtures.ts'

const ERROR = '{"name":"Error","message":"gave up recovering the run"}'

async function recoveriesOf(store: StateStore, id: string): Promise<number> {
  return (await mustGetRun(store, id)).recoveries
}

/**
 * Starts `id` (leased to OWNER_A at T0, epoch 1), then lets its lease lapse and claims it
 * with OWNER_B: a takeover. Returns the new fence (epoch 2) and the claim's time.
 */
async function takenOver(store: StateStore, id: string): Promise<{ fence: Fence; at: number }> {
  await startRun(store, id, T0, { owner: OWNER_A })
  const at = T0 + LEASE_MS
  const { claimed } = await claim(store, { owner: OWNER_B, now: at })
  const run = claimed.find((r) => r.id === id)
  assert.ok(run !== undefined, `${id} must be claimable once its lease lapsed`)
  assert.equal(run.recoveries, 1, 'the takeover counts')
  return { fence: { runId: id, epoch: run.leaseEpoch }, at }
}

function dead(fence: Fence, extra: Partial<Extract<StoreOp, { type: 'finishRun' }>> = {}): StoreOp {
  return { type: 'finishRun', fence, status: 'dead', output: null, error: ERROR, ...extra }
}

function expectPromoted(result: OpResult, what: string): void {
  expectApplied(result, what)
  assert.equal(result.status === 'applied' && result.promoted === true, true, `${what}: promoted`)
}

export function recoveryTests(define: Define): void {
  define('a created run has recoveries 0, claimed or not', async (store) => {
    assert.equal((await createPending(store, 'pending', T0)).recoveries, 0, 'createRun')
    await startRun(store, 'claimed', T0)
    assert.equal(await recoveriesOf(store, 'claimed'), 0, 'createRun with claim')
  })

  define(
    'a claim of a lapsed lease adds 1, each time; as stored and as returned',
    async (store) => {
      await createPending(store, 'run-1', T0)
      const first = await claim(store, { now: T0 + 1 })
      assert.equal(first.claimed[0]?.recoveries, 0, 'a claim of a pending run is no takeover')
      const second = await claim(store, { owner: OWNER_B, now: T0 + 1 + LEASE_MS })
      assert.equal(second.claimed[0]?.recoveries, 1, 'the lease lapsed: a takeover')
      assert.equal(await recoveriesOf(store, 'run-1'), 1, 'as stored')
      const third = await claim(store, { owner: OWNER_A, now: T0 + 1 + 2 * LEASE_MS })
      assert.equal(third.claimed[0]?.recoveries, 2, 'a second takeover')
      const run = await mustGetRun(store, 'run-1')
      same([run.recoveries, run.turns, run.leaseEpoch], [2, 3, 3], 'recoveries, turns, epoch')
    },
  )

  define('claims of pending and waiting runs add nothing', async (store) => {
    await createPending(store, 'fresh', T0)
    await suspend(store, await startRun(store, 'sleeper', T0), T0 + 5, T0 + 1)
    const { claimed } = await claim(store, { owner: OWNER_B, now: T0 + 10 })
    same(
      claimed.map((r) => [r.id, r.recoveries]).sort(),
      [
        ['fresh', 0],
        ['sleeper', 0],
      ],
      'claimed',
    )
    assert.equal(await recoveriesOf(store, 'sleeper'), 0, 'as stored')
  })

  define('reclaimOwned changes nothing; the claim after it adds 1', async (store) => {
    await startRun(store, 'run-1', T0, { owner: OWNER_A })
    assert.equal(await store.reclaimOwned(OWNER_A, T0 + 10), 1)
    assert.equal(await recoveriesOf(store, 'run-1'), 0, 'reclaimOwned itself')
    const { claimed } = await claim(store, { owner: OWNER_A, now: T0 + 10 })
    assert.equal(claimed[0]?.recoveries, 1, 'handed back and claimed: a takeover')
    assert.equal(await recoveriesOf(store, 'run-1'), 1, 'as stored')
  })

  define('a suspend sets recoveries to 0', async (store) => {
    const { fence, at } = await takenOver(store, 'run-1')
    await suspend(store, fence, at + 100, at + 1)
    assert.equal(await recoveriesOf(store, 'run-1'), 0)
  })

  define('a release sets recoveries to 0', async (store) => {
    const { fence, at } = await takenOver(store, 'run-1')
    const op: StoreOp = { type: 'releaseRun', fence, availableAt: at + 100 }
    expectApplied(await applyOne(store, op, at + 1), 'releaseRun')
    assert.equal(await recoveriesOf(store, 'run-1'), 0)
  })

  define('a renewal sets recoveries to 0 only when it reports progress', async (store) => {
    const { fence, at } = await takenOver(store, 'run-1')
    const renew = (progressed?: boolean): StoreOp => ({
      type: 'renewLease',
      fence,
      leaseMs: LEASE_MS,
      ...(progressed === undefined ? {} : { progressed }),
    })
    expectApplied(await applyOne(store, renew(), at + 1), 'renewLease')
    assert.equal(await recoveriesOf(store, 'run-1'), 1, 'progressed absent: kept')
    expectApplied(await applyOne(store, renew(false), at + 2), 'renewLease progressed false')
    assert.equal(await recoveriesOf(store, 'run-1'), 1, 'progressed false: kept')
    await save(store, fence, checkpoint('run-1', 0), at + 3)
    assert.equal(await recoveriesOf(store, 'run-1'), 1, 'a save changes nothing by itself')
    // A renewal reporting progress under a stale lease changes nothing.
    const stale: StoreOp = {
      type: 'renewLease',
      fence: { ...fence, epoch: 1 },
      leaseMs: 1,
      progressed: true,
    }
    expectFenced(
      await applyOne(store, stale, at + 4),
      { status: 'running', epoch: 2 },
      'a stale renewal',
    )
    assert.equal(await recoveriesOf(store, 'run-1'), 1, 'a fenced renewal: kept')
    expectApplied(await applyOne(store, renew(true), at + 5), 'renewLease progressed')
    const run = await mustGetRun(store, 'run-1')
    same([run.recoveries, run.availableAt], [0, at + 5 + LEASE_MS], 'reset, lease renewed')
  })

  define('a requeue sets recoveries to 0; a finish keeps it', async (store) => {
    const { fence, at } = await takenOver(store, 'run-1')
    const failed: StoreOp = {
      type: 'finishRun',
      fence,
      status: 'failed',
      output: null,
      error: ERROR,
    }
    expectApplied(await applyOne(store, failed, at + 1), 'finishRun failed')
    assert.equal(await recoveriesOf(store, 'run-1'), 1, 'the finish keeps the count')
    const requeued = await store.requeueRun({
      runId: 'run-1',
      epoch: 2,
      resetSeqs: [],
      now: at + 2,
    })
    assert.equal(requeued.status, 'applied')
    assert.equal(await recoveriesOf(store, 'run-1'), 0, 'requeued')
  })

  define('an unpark sets recoveries to 0; a park keeps it', async (store) => {
    const { fence, at } = await takenOver(store, 'run-1')
    expectApplied(
      await applyOne(store, { type: 'parkRun', fence, reason: NON_DETERMINISM }, at + 1),
      'parkRun',
    )
    assert.equal(await recoveriesOf(store, 'run-1'), 1, 'the park keeps the count')
    assert.equal(await store.unpark([ORDERS_V1], NON_DETERMINISM.code, at + 2), 1)
    const run = await mustGetRun(store, 'run-1')
    same([run.status, run.recoveries], ['pending', 0], 'unparked')
  })

  define(
    'finishRun dead is terminal: later writes fenced, messages and cancels refused',
    async (store) => {
      const { fence, at } = await takenOver(store, 'run-1')
      expectApplied(await applyOne(store, dead(fence), at + 1), 'finishRun dead')
      const run = await mustGetRun(store, 'run-1')
      same(
        [run.status, run.error, run.finishedAt, run.availableAt, run.recoveries],
        ['dead', ERROR, at + 1, null, 1],
        'the dead run',
      )
      const current = { status: 'dead' as const, epoch: 2 }
      expectFenced(await applyOne(store, dead(fence), at + 2), current, 'a second finish')
      const renew: StoreOp = { type: 'renewLease', fence, leaseMs: LEASE_MS, progressed: true }
      expectFenced(await applyOne(store, renew, at + 2), current, 'a renewal')
      const message: StoreOp = {
        type: 'deliverMessage',
        message: { runId: 'run-1', kind: 'signal', name: 'go', dedupeId: 'm-1', payload: '1' },
      }
      same(await applyOne(store, message, at + 3), { status: 'terminal', current }, 'a message')
      same(await store.loadInbox('run-1'), [], 'stored nowhere')
      const cancel: StoreOp = { type: 'cancelRun', runId: 'run-1', error: ERROR }
      same(await applyOne(store, cancel, at + 4), { status: 'terminal', current }, 'a cancel')
      same((await mustGetRun(store, 'run-1')).status, 'dead', 'still dead')
      const { claimed } = await claim(store, { now: at + 10 * LEASE_MS })
      same(claimed, [], 'never claimable')
    },
  )

  define('finishRun dead delivers its notify to the parent', async (store) => {
    const parent = await startRun(store, 'parent', T0)
    await suspend(store, parent, null, T0 + 1)
    const child = await startRun(store, 'child', T0)
    const notify = {
      runId: 'parent',
      kind: 'signal' as const,
      name: 'cairn:child:0',
      dedupeId: 'child-dead',
      payload: '{"status":"dead"}',
    }
    expectApplied(await applyOne(store, dead(child, { notify }), T0 + 2), 'finishRun dead')
    same(
      (await store.loadInbox('parent')).map((m) => [m.seq, m.name, m.dedupeId, m.payload]),
      [[1, 'cairn:child:0', 'child-dead', '{"status":"dead"}']],
      "the parent's inbox",
    )
    assert.equal((await mustGetRun(store, 'parent')).availableAt, T0 + 2, 'the parent is woken')
  })

  define('a dead run frees its singleton slot: the waiter is promoted', async (store) => {
    const admission = {
      scope: 'orders',
      key: 'k',
      limit: 1,
      onFull: 'queue' as const,
      maxQueueDepth: null,
    }
    const create = (id: string, at: number, claimed: boolean): StoreOp => ({
      type: 'createRun',
      run: newRun(id, { createdAt: at }),
      admission,
      ...(claimed ? { claim: { owner: OWNER_A, leaseMs: LEASE_MS } } : {}),
    })
    same(await applyOne(store, create('r1', T0, true), T0), { status: 'applied', epoch: 1 }, 'r1')
    same(
      await applyOne(store, create('r2', T0 + 1, false), T0 + 1),
      { status: 'applied', epoch: 0, queued: true },
      'r2 queued behind r1',
    )
    const end = dead({ runId: 'r1', epoch: 1 }, { admission: { scope: 'orders', key: 'k' } })
    expectPromoted(await applyOne(store, end, T0 + 2), 'r1 ends dead')
    const r2 = await mustGetRun(store, 'r2')
    same([r2.status, r2.availableAt], ['pending', T0 + 2], 'r2 promoted, claimable now')
    same(
      await applyOne(store, create('r3', T0 + 3, false), T0 + 3),
      { status: 'applied', epoch: 0, queued: true },
      'r2 holds the slot now, not the dead r1',
    )
  })

  define("a dead run's queue items hold no slot", async (store) => {
    const [a, b, c] = await line(store, ['a', 'b', 'c'])
    expectApplied(await applyOne(store, dead(a as Fence), T0 + 10), 'a ends dead, no names')
    ownGrants(store).delete('a')
    same(
      await stats(store),
      unrated({ queue: Q, concurrency: 1, granted: 0, waiting: 2, oldestWaitingSince: T0 + 1 }),
      "the dead holder's slot is free",
    )
    assert.equal((await store.grantQueueSlots([Q], T0 + 11)).grants.length, 1, 'the next pass')
    same(await grantedAmong(store, ['b', 'c']), ['b'], 'grants b')
    const named = await applyOne(store, dead(b as Fence, { releaseQueues: [Q] }), T0 + 12)
    expectApplied(named, 'b ends dead naming its queue')
    same(await grantedAmong(store, ['c']), ['c'], 'the dead end granted c in its write')
    expectApplied(await applyOne(store, dead(c as Fence, { releaseQueues: [Q] }), T0 + 13), 'c')
    assert.equal((await stats(store)).granted, 0, 'nobody holds a slot')
  })

  define(
    'requeueRun of a dead run applies: pending, recoveries 0, error cleared',
    async (store) => {
      const { fence, at } = await takenOver(store, 'run-1')
      expectApplied(await applyOne(store, dead(fence), at + 1), 'finishRun dead')
      const before = await mustGetRun(store, 'run-1')
      same(
        await store.requeueRun({ runId: 'run-1', epoch: 2, resetSeqs: [], now: at + 2 }),
        { status: 'applied', epoch: 3, positionsReset: 0 },
        'requeueRun',
      )
      same(
        await mustGetRun(store, 'run-1'),
        {
          ...before,
          status: 'pending',
          error: null,
          finishedAt: null,
          availableAt: at + 2,
          updatedAt: at + 2,
          leaseEpoch: 3,
          recoveries: 0,
        },
        'the requeued run',
      )
      const { claimed } = await claim(store, { now: at + 2 })
      same(
        claimed.map((r) => [r.id, r.leaseEpoch, r.recoveries]),
        [['run-1', 4, 0]],
        'claimed at once, no takeover',
      )
    },
  )

  define('listRuns finds dead runs by status', async (store) => {
    const { fence, at } = await takenOver(store, 'gone')
    expectApplied(await applyOne(store, dead(fence), at + 1), 'finishRun dead')
    const failed = await startRun(store, 'failed', T0 + 1)
    const fail: StoreOp = {
      type: 'finishRun',
      fence: failed,
      status: 'failed',
      output: null,
      error: ERROR,
    }
    expectApplied(await applyOne(store, fail, at + 2), 'finishRun failed')
    await createPending(store, 'open', T0 + 2)
    same(
      (await list(store, { status: ['dead'] })).runs.map((r) => r.id),
      ['gone'],
      "['dead']",
    )
    same(
      (await list(store, { status: 'dead' })).runs.map((r) => r.id),
      ['gone'],
      "'dead'",
    )
    same(
      (await list(store, { status: ['dead', 'failed'] })).runs.map((r) => r.id).sort(),
      ['failed', 'gone'],
      "['dead', 'failed']",
    )
  })
}
