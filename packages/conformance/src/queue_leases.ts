/**
 * Slot leases (StateStore.leaseQueueSlots): an owner holds slots of a queue until `now + leaseMs`; every
 * grant pass counts unexpired leased slots as in use, so granted items + leased slots never
 * exceed the concurrency; a holder never grows past a durable waiter; an expired lease holds
 * nothing; queueStats reports `leased`. Who holds what is read back from the store's answers,
 * the grant messages and queueStats.
 */
import assert from 'node:assert/strict'
import type { QueueLeaseRequest, StateStore, StoreOp } from '@cairn/core/contracts'
import { T0 } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import { Q, grantedAmong, line, release, request, stats } from './queue_fixtures.ts'
import { applyOne, expectApplied } from './store_calls.ts'

const LEASE_MS = 10_000

function lease(overrides: Partial<QueueLeaseRequest> = {}): QueueLeaseRequest {
  return {
    queue: Q,
    owner: 'engine-a',
    want: 1,
    inUse: 0,
    concurrency: 3,
    leaseMs: LEASE_MS,
    ...overrides,
  }
}

/**
 * The store's leaseQueueSlots. The method is optional in the contract (an engine on a store
 * without it keeps every queue on the durable line), but a store that runs this group claims
 * it: a missing method fails the test.
 */
function leasing(store: StateStore): NonNullable<StateStore['leaseQueueSlots']> {
  const method = store.leaseQueueSlots
  assert.ok(method !== undefined, `${store.kind} store: leaseQueueSlots is missing`)
  return method.bind(store)
}

export function queueLeaseTests(define: Define): void {
  define('a lease on a free queue holds what it asks, up to the concurrency', async (store) => {
    const take = leasing(store)
    same(
      await take(lease({ want: 2 }), T0),
      { held: 2, expiresAt: T0 + LEASE_MS, waiting: 0 },
      'two of three',
    )
    const s = await stats(store, Q, T0 + 1)
    same([s.concurrency, s.granted, s.leased, s.waiting], [3, 0, 2, 0], 'queueStats')
    same(
      await take(lease({ want: 5 }), T0 + 2),
      {
        held: 3,
        expiresAt: T0 + 2 + LEASE_MS,
        waiting: 0,
      },
      'the lease answer',
    )
    same(
      await take(lease({ want: 0 }), T0 + 3),
      {
        held: 0,
        expiresAt: T0 + 3 + LEASE_MS,
        waiting: 0,
      },
      'the lease answer',
    )
    assert.equal((await stats(store, Q, T0 + 4)).leased, 0, 'want 0 gives every slot back')
  })

  define('leased slots are never granted to items; freed ones are', async (store) => {
    const take = leasing(store)
    await take(lease({ want: 2 }), T0)
    const [a, b] = await line(store, ['a', 'b'], () => request({ concurrency: 3 }))
    same(await grantedAmong(store, ['a', 'b']), ['a'], 'one free slot: the first item')
    assert.equal(
      (await store.grantQueueSlots([Q], T0 + 100)).grants.length,
      0,
      'no grant into the lease',
    )
    // The holder keeps its slots past a waiter but cannot grow.
    same(
      await take(lease({ want: 3 }), T0 + 200),
      {
        held: 2,
        expiresAt: T0 + 200 + LEASE_MS,
        waiting: 1,
      },
      'the lease answer',
    )
    // It gives one back; the next pass grants b.
    assert.equal((await take(lease({ want: 1 }), T0 + 300)).held, 1)
    assert.equal((await store.grantQueueSlots([Q], T0 + 400)).grants.length, 1, 'b is granted')
    same(await grantedAmong(store, ['a', 'b']), ['a', 'b'], 'both hold a slot')
    const s = await stats(store, Q, T0 + 500)
    same([s.granted, s.leased, s.waiting], [2, 1, 0], 'two items and one leased slot')
    await release(store, a!, T0 + 600)
    await release(store, b!, T0 + 700)
  })

  define('an enqueue and a release count the leased slots in their grant pass', async (store) => {
    const take = leasing(store)
    await take(lease({ want: 1, concurrency: 2 }), T0)
    const [a, b] = await line(store, ['a', 'b'], () => request({ concurrency: 2 }))
    same(
      await grantedAmong(store, ['a', 'b']),
      ['a'],
      'the enqueue granted into the free slot only',
    )
    await release(store, a!, T0 + 50)
    same(await grantedAmong(store, ['b']), ['b'], "a's release granted b into the slot it freed")
    assert.equal((await stats(store, Q, T0 + 60)).granted, 1)
    await release(store, b!, T0 + 70)
  })

  define('a lease expires at now + leaseMs: its slots are free from then on', async (store) => {
    const take = leasing(store)
    await take(lease({ want: 3 }), T0)
    await line(store, ['a'], () => request({ concurrency: 3 }))
    same(await grantedAmong(store, ['a']), [], 'all slots leased')
    assert.equal(
      (await store.grantQueueSlots([Q], T0 + LEASE_MS - 1)).grants.length,
      0,
      'still held',
    )
    assert.equal((await stats(store, Q, T0 + LEASE_MS)).leased, 0, 'not counted at its expiry')
    assert.equal((await store.grantQueueSlots([Q], T0 + LEASE_MS)).grants.length, 1, 'granted')
    same(await grantedAmong(store, ['a']), ['a'], 'a holds it')
    // The lapsed holder renews as a newcomer: it takes what is free (no item waits now).
    same(
      await take(lease({ want: 3 }), T0 + LEASE_MS + 1),
      {
        held: 2,
        expiresAt: T0 + 2 * LEASE_MS + 1,
        waiting: 0,
      },
      'the lease answer',
    )
  })

  define('a lapsed holder does not take slots back past a waiter', async (store) => {
    const take = leasing(store)
    await take(lease({ want: 1, concurrency: 1 }), T0)
    const [a] = await line(store, ['a'], () => request({ concurrency: 1 }))
    same(await grantedAmong(store, ['a']), [], 'a waits')
    // After the expiry, before any pass: the holder asks again and must yield to a.
    same(
      await take(lease({ want: 1, concurrency: 1 }), T0 + LEASE_MS + 5),
      {
        held: 0,
        expiresAt: T0 + 2 * LEASE_MS + 5,
        waiting: 1,
      },
      'the lease answer',
    )
    assert.equal((await store.grantQueueSlots([Q], T0 + LEASE_MS + 6)).grants.length, 1)
    await release(store, a!, T0 + LEASE_MS + 7)
  })

  define('owners share the concurrency; racing owners never hold more than it', async (store) => {
    const take = leasing(store)
    assert.equal((await take(lease({ owner: 'a', want: 2 }), T0)).held, 2)
    assert.equal((await take(lease({ owner: 'b', want: 3 }), T0 + 1)).held, 1, 'what a left')
    assert.equal((await take(lease({ owner: 'a', want: 0 }), T0 + 2)).held, 0)
    assert.equal((await take(lease({ owner: 'b', want: 3 }), T0 + 3)).held, 3, 'a gave back')
    await take(lease({ owner: 'b', want: 0 }), T0 + 4)
    const owners = Array.from({ length: 10 }, (_, i) => `racer-${i}`)
    const answers = await Promise.all(
      owners.map((owner) => take(lease({ owner, want: 2, concurrency: 5 }), T0 + 10)),
    )
    const held = answers.reduce((sum, a) => sum + a.held, 0)
    assert.equal(held, 5, `the racers hold exactly the concurrency, got ${held}`)
    assert.equal((await stats(store, Q, T0 + 11)).leased, 5)
  })

  define(
    'the request sets the concurrency; a lowered one shrinks what a holder may keep',
    async (store) => {
      const take = leasing(store)
      assert.equal((await take(lease({ want: 3 }), T0)).held, 3)
      assert.equal((await take(lease({ want: 3, concurrency: 1 }), T0 + 1)).held, 1)
      const s = await stats(store, Q, T0 + 2)
      same([s.concurrency, s.leased], [1, 1], 'concurrency 1, one leased')
    },
  )

  define(
    'slots in use are kept whatever the concurrency or the waiters; the rest go',
    async (store) => {
      const take = leasing(store)
      assert.equal((await take(lease({ want: 3 }), T0)).held, 3)
      // Another deploy's concurrency of 1: the holder keeps the two in use, not the third.
      assert.equal((await take(lease({ want: 3, inUse: 2, concurrency: 1 }), T0 + 1)).held, 2)
      // A waiter arrives (concurrency 4 from its deploy): the holder keeps its two, grows not.
      await line(store, ['a'], () => request({ concurrency: 4 }))
      same(await grantedAmong(store, ['a']), ['a'], 'room for a beside the two leased')
      await line(store, ['b', 'c', 'd'], () => request({ concurrency: 4 }))
      same(await grantedAmong(store, ['b', 'c', 'd']), ['b'], 'four in use: c and d wait')
      same(
        await take(lease({ want: 4, inUse: 2, concurrency: 4 }), T0 + 2),
        { held: 2, expiresAt: T0 + 2 + LEASE_MS, waiting: 2 },
        'kept, not grown past the waiters',
      )
      // inUse is kept only from the holder's own unexpired slots: never granted by it.
      assert.equal((await take(lease({ owner: 'other', want: 1, inUse: 1 }), T0 + 3)).held, 0)
      // Expired, nothing is kept.
      const late = T0 + 2 + LEASE_MS
      assert.equal((await take(lease({ want: 2, inUse: 2, concurrency: 4 }), late)).held, 0)
    },
  )

  define('granted items of ended runs do not count against a lease', async (store) => {
    const take = leasing(store)
    await line(store, ['a'], () => request({ concurrency: 2 }))
    same(await grantedAmong(store, ['a']), ['a'], 'a holds one')
    assert.equal((await take(lease({ want: 2, concurrency: 2 }), T0 + 10)).held, 1, 'a holds one')
    const cancel: StoreOp = { type: 'cancelRun', runId: 'a', error: '"stop"' }
    expectApplied(await applyOne(store, cancel, T0 + 20), 'cancel a')
    assert.equal(
      (await take(lease({ want: 2, concurrency: 2 }), T0 + 30)).held,
      2,
      "a's slot is free",
    )
  })

  define(
    'an owner as long as an instanceId may be is held apart from its prefix',
    async (store) => {
      const take = leasing(store)
      const long = '中'.repeat(255)
      assert.equal((await take(lease({ owner: long, want: 2 }), T0)).held, 2)
      assert.equal((await take(lease({ owner: long.slice(1), want: 2 }), T0 + 1)).held, 1)
      assert.equal((await take(lease({ owner: long, want: 2 }), T0 + 2)).held, 2, 'its own kept')
    },
  )

  define('a malformed request is E_INVALID_ARGUMENT and changes nothing', async (store) => {
    const take = leasing(store)
    await take(lease({ want: 1 }), T0)
    const bad: Array<[unknown, unknown]> = [
      [lease({ want: -1 }), T0],
      [lease({ want: 1.5 }), T0],
      [lease({ want: Number.NaN }), T0],
      [lease({ want: 100_001 }), T0],
      [lease({ inUse: -1 }), T0],
      [lease({ inUse: 0.5 }), T0],
      [lease({ concurrency: 0 }), T0],
      [lease({ leaseMs: 0 }), T0],
      [lease({ leaseMs: 2 ** 31 }), T0],
      [lease({ owner: '' }), T0],
      [lease({ owner: 'a\u0000b' }), T0],
      [lease({ owner: '\ud800' }), T0],
      [lease({ owner: 'x'.repeat(256) }), T0],
      [lease({ queue: '' }), T0],
      [{ ...lease(), extra: 1 }, T0],
      [
        JSON.parse(
          '{"queue":"carrier","owner":"o","want":1,"inUse":0,"concurrency":3,"leaseMs":10,"__proto__":{}}',
        ),
        T0,
      ],
      [null, T0],
      [lease(), Number.NaN],
      [lease(), -1],
    ]
    for (const [request, now] of bad)
      await expectRejection(
        () => take(request as QueueLeaseRequest, now as number),
        'E_INVALID_ARGUMENT',
        `leaseQueueSlots(${JSON.stringify(request)}, ${String(now)})`,
      )
    const s = await stats(store, Q, T0 + 1)
    same([s.concurrency, s.leased], [3, 1], 'nothing changed')
  })
}
