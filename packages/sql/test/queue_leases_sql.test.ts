/**
 * Slot leases (StateStore.leaseQueueSlots) on every SQL store, beside the store-independent
 * conformance suite: leases and granted items together never exceed the concurrency, however
 * enqueues, releases, grant passes and leases interleave; an expired lease holds nothing;
 * leases racing on two stores (pools) of one database never hold more than the concurrency;
 * queueStats.leased. `DB=sqlite,postgres,mysql,knex-sqlite,knex-postgres,knex-mysql`
 * (default: every SQL store) selects (tests/helpers/stores.ts).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type {
  CheckpointRecord,
  Fence,
  OpResult,
  QueueLeaseRequest,
  QueueRequest,
  QueueStats,
  StateStore,
  StoreOp,
} from '@cairn/core/contracts'
import { openStore, selectedStores } from '../../../tests/helpers/stores.ts'

const T0 = 2_200_000_000_000
const Q = 'carrier'
const SEQ = 2

type Leaser = Required<Pick<StateStore, 'leaseQueueSlots'>> & StateStore

function lease(
  store: StateStore,
  owner: string,
  want: number,
  now: number,
  extra: Partial<QueueLeaseRequest> = {},
) {
  const request = { queue: Q, owner, want, inUse: 0, concurrency: 3, leaseMs: 1_000, ...extra }
  return (store as Leaser).leaseQueueSlots(request, now)
}

function queueRequest(concurrency: number): QueueRequest {
  return { queue: Q, concurrency, attempt: 1, priority: 0, fairnessKey: '', rateLimit: null }
}

function waitingCheckpoint(runId: string): CheckpointRecord {
  return {
    runId,
    seq: SEQ,
    name: `step-${SEQ}`,
    kind: 'step',
    status: 'waiting',
    attempts: 0,
    order: SEQ + 1,
    input: null,
    output: null,
    error: null,
    wakeAt: null,
    startedAt: T0,
    updatedAt: T0,
    worker: null,
  }
}

async function applyOne(store: StateStore, op: StoreOp, now: number): Promise<OpResult> {
  const [result] = await store.applyBatch([op], now)
  assert.equal(result?.status, 'applied', `${op.type}: ${JSON.stringify(result)}`)
  return result as OpResult
}

/** A run leased to an engine (epoch 1), so its saves apply. */
async function startRun(store: StateStore, id: string, now = T0): Promise<Fence> {
  const run = { id, workflow: 'orders', version: 'v1', input: '{}', createdAt: now }
  await applyOne(store, { type: 'createRun', run, claim: { owner: 'e', leaseMs: 3_600_000 } }, now)
  return { runId: id, epoch: 1 }
}

/** Whether the enqueue's own result says its item holds a slot. */
async function enqueue(
  store: StateStore,
  fence: Fence,
  concurrency: number,
  now: number,
): Promise<boolean> {
  const op: StoreOp = {
    type: 'saveCheckpoint',
    fence,
    checkpoint: waitingCheckpoint(fence.runId),
    enqueue: queueRequest(concurrency),
  }
  const result = await applyOne(store, op, now)
  return result.status === 'applied' && result.granted === true
}

async function release(store: StateStore, fence: Fence, now: number): Promise<OpResult> {
  const checkpoint = { ...waitingCheckpoint(fence.runId), status: 'completed' as const }
  return applyOne(store, { type: 'saveCheckpoint', fence, checkpoint, release: Q }, now)
}

async function stats(store: StateStore, now: number): Promise<QueueStats> {
  const [found] = await store.queueStats([Q], now)
  assert.ok(found !== undefined, `queueStats lists ${Q}`)
  return found
}

/** Slots in use never exceed the concurrency: granted items and leased slots together. */
async function withinConcurrency(store: StateStore, now: number, what: string): Promise<void> {
  const s = await stats(store, now)
  assert.ok(
    s.granted + s.leased <= s.concurrency,
    `${what}: granted ${s.granted} + leased ${s.leased} <= concurrency ${s.concurrency}`,
  )
}

type Body = (store: StateStore, other: () => Promise<StateStore>) => Promise<void>

const CASES: ReadonlyArray<[string, Body]> = [
  [
    'an item enqueued after a lease gets only the slots the lease left free',
    async (store) => {
      assert.deepEqual(await lease(store, 'a', 2, T0), {
        held: 2,
        expiresAt: T0 + 1_000,
        waiting: 0,
      })
      const fences = []
      for (let i = 0; i < 4; i++) fences.push(await startRun(store, `r${i}`))
      const granted = []
      for (const [i, fence] of fences.entries())
        granted.push(await enqueue(store, fence, 3, T0 + i))
      assert.deepEqual(granted, [true, false, false, false], 'one slot was free')
      const s = await stats(store, T0 + 10)
      assert.deepEqual(
        { granted: s.granted, waiting: s.waiting, leased: s.leased, concurrency: s.concurrency },
        { granted: 1, waiting: 3, leased: 2, concurrency: 3 },
      )
      // A pass grants nothing into leased slots.
      assert.deepEqual((await store.grantQueueSlots([Q], T0 + 11)).grants, [])
      // While items wait, the holder keeps what it has, never more; another gets nothing free.
      assert.equal((await lease(store, 'a', 3, T0 + 12)).held, 2, 'a keeps 2, never grows')
      assert.deepEqual(await lease(store, 'b', 1, T0 + 13), {
        held: 0,
        expiresAt: T0 + 1_013,
        waiting: 3,
      })
      await withinConcurrency(store, T0 + 14, 'leases beside waiters')
      // A release frees one slot: the pass grants the next waiter into it, not into a lease's.
      const released = await release(store, fences[0] as Fence, T0 + 15)
      assert.equal(released.status === 'applied' ? released.grants?.length : -1, 1)
      await withinConcurrency(store, T0 + 16, 'after the release')
      // The holder shrinks: the queue's next pass grants the slot it gave back.
      assert.equal((await lease(store, 'a', 1, T0 + 17)).held, 1)
      assert.equal((await store.grantQueueSlots([Q], T0 + 18)).grants.length, 1)
      const after = await stats(store, T0 + 19)
      assert.deepEqual(
        { granted: after.granted, waiting: after.waiting, leased: after.leased },
        { granted: 2, waiting: 1, leased: 1 },
      )
      // Every slot given back: the last waiter gets one.
      assert.equal((await lease(store, 'a', 0, T0 + 20)).held, 0)
      assert.equal((await store.grantQueueSlots([Q], T0 + 21)).grants.length, 1)
      const last = await stats(store, T0 + 22)
      assert.deepEqual(
        { granted: last.granted, waiting: last.waiting, leased: last.leased },
        { granted: 3, waiting: 0, leased: 0 },
      )
    },
  ],
  [
    'an expired lease holds nothing: the pass grants the waiter, its holder cannot grow',
    async (store) => {
      assert.equal((await lease(store, 'a', 3, T0)).held, 3)
      const r0 = await startRun(store, 'r0')
      assert.equal(await enqueue(store, r0, 3, T0 + 1), false, 'every slot is leased')
      assert.equal((await stats(store, T0 + 999)).leased, 3, 'unexpired at T0 + 999')
      assert.deepEqual((await store.grantQueueSlots([Q], T0 + 999)).grants, [])
      assert.equal((await stats(store, T0 + 1_000)).leased, 0, 'expired at T0 + 1000')
      const { grants } = await store.grantQueueSlots([Q], T0 + 1_000)
      assert.deepEqual(
        grants.map((g) => g.runId),
        ['r0'],
        'granted once the lease expired',
      )
      // A second waiter, then the expired holder asks again (at concurrency 3: two slots free):
      // it held 0 (expired), so it gets 0 while an item waits.
      const r1 = await startRun(store, 'r1')
      assert.equal(await enqueue(store, r1, 1, T0 + 1_001), false, 'concurrency 1: r0 holds it')
      assert.deepEqual(await lease(store, 'a', 2, T0 + 1_002), {
        held: 0,
        expiresAt: T0 + 2_002,
        waiting: 1,
      })
      // With nobody waiting, a holder takes what is free, up to `want`.
      await release(store, r0, T0 + 1_003)
      const s = await stats(store, T0 + 1_004)
      assert.deepEqual({ granted: s.granted, waiting: s.waiting }, { granted: 1, waiting: 0 })
      assert.equal((await lease(store, 'b', 5, T0 + 1_005, { concurrency: 4 })).held, 3)
      assert.equal((await stats(store, T0 + 1_006)).concurrency, 4, 'the lease set it')
      await withinConcurrency(store, T0 + 1_006, 'after the leases')
    },
  ],
  [
    'a lease makes a queue never written, sets its concurrency, and refuses a bad request',
    async (store) => {
      await assert.rejects(lease(store, '', 1, T0), { code: 'E_INVALID_ARGUMENT' })
      await assert.rejects(lease(store, 'a', 1, T0, { leaseMs: 0 }), {
        code: 'E_INVALID_ARGUMENT',
      })
      assert.deepEqual(await store.queueStats([Q], T0), [], 'a refused call writes nothing')
      assert.deepEqual(await lease(store, 'a', 5, T0, { concurrency: 2 }), {
        held: 2,
        expiresAt: T0 + 1_000,
        waiting: 0,
      })
      assert.deepEqual(await stats(store, T0 + 1), {
        queue: Q,
        concurrency: 2,
        granted: 0,
        waiting: 0,
        oldestWaitingSince: null,
        rateLimit: null,
        recentGrants: 0,
        leased: 2,
        throttled: 0,
      })
      // The queue's row is an enqueue's: an enqueue into it waits for a slot, then gets one.
      const r0 = await startRun(store, 'r0')
      assert.equal(await enqueue(store, r0, 2, T0 + 2), false)
      const two = { concurrency: 2 }
      assert.equal((await lease(store, 'a', 1, T0 + 3, two)).held, 1)
      assert.equal((await store.grantQueueSlots([Q], T0 + 4)).grants.length, 1)
      // Renewing keeps the slots and moves the expiry; want 0 deletes the lease.
      assert.deepEqual(await lease(store, 'a', 1, T0 + 500, two), {
        held: 1,
        expiresAt: T0 + 1_500,
        waiting: 0,
      })
      assert.equal((await stats(store, T0 + 1_200)).leased, 1, 'renewed past its first expiry')
      assert.equal((await lease(store, 'a', 0, T0 + 600, two)).held, 0)
      assert.equal((await stats(store, T0 + 601)).leased, 0)
    },
  ],
  [
    'leases racing from two stores never hold more than the concurrency',
    async (store, other) => {
      const second = await other()
      const stores = [store, second]
      // Eight owners at once, each wanting 2 of 5 slots: exactly 5 are handed out.
      const owners = Array.from({ length: 8 }, (_, i) => `engine-${i}`)
      const first = await Promise.all(
        owners.map((owner, i) =>
          lease(stores[i % 2] as StateStore, owner, 2, T0, { concurrency: 5 }),
        ),
      )
      const heldFirst = first.reduce((sum, l) => sum + l.held, 0)
      assert.equal(heldFirst, 5, `held ${JSON.stringify(first.map((l) => l.held))}`)
      assert.equal((await stats(store, T0 + 1)).leased, 5)
      // Rounds of leases racing enqueues, releases and passes: slots in use stay within 5.
      const fences: Fence[] = []
      for (let round = 0; round < 6; round++) {
        const now = T0 + 10 + round * 10
        const fence = await startRun(store, `run-${round}`, now)
        fences.push(fence)
        const work: Promise<unknown>[] = owners.map((owner, i) =>
          lease(stores[i % 2] as StateStore, owner, (round + i) % 3, now, { concurrency: 5 }),
        )
        work.push(enqueue(stores[round % 2] as StateStore, fence, 5, now))
        work.push((stores[(round + 1) % 2] as StateStore).grantQueueSlots([Q], now))
        if (round >= 2)
          work.push(release(stores[round % 2] as StateStore, fences[round - 2] as Fence, now))
        await Promise.all(work)
        await withinConcurrency(store, now + 1, `round ${round}`)
      }
    },
  ],
]

const names = (await selectedStores()).filter((name) => name !== 'memory')
for (const name of names)
  for (const [title, body] of CASES)
    void test(`${name}: ${title}`, async () => {
      const handle = await openStore(name)
      try {
        await handle.store.open()
        await body(handle.store, async () => {
          const other = handle.reopen()
          await other.open()
          return other
        })
      } finally {
        await handle.cleanup()
      }
    })
