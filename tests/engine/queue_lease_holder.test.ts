/**
 * One queue's slot lease on an engine (engine/queue_lease_holder.ts), against a scripted
 * store: the holder hands out no more slots than the store's answer and never on a lease gone
 * stale, sends waiters to the durable line when it must (store failures, a refusal, durable
 * waiters, a wait too long), and renews or gives back as its demand changes.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { QueueLease, QueueLeaseRequest } from '@cairn/core/contracts'
import { FakeClock, settle } from '@cairn/core/testing'
import {
  QueueLeaseHolder,
  type LeasedSlot,
} from '../../packages/core/src/engine/queue_lease_holder.ts'

const LEASE_MS = 3_000

/** A store whose answers the test scripts: `answer` maps each request to a lease or an error. */
function scriptedStore(answer: (r: QueueLeaseRequest) => QueueLease | Error | 'hang') {
  const calls: QueueLeaseRequest[] = []
  return {
    calls,
    store: {
      grantQueueSlots: async () => ({ grants: [], throttled: [] }),
      leaseQueueSlots: async (r: QueueLeaseRequest, now: number): Promise<QueueLease> => {
        calls.push(r)
        const a = answer(r)
        if (a === 'hang') return new Promise<never>(() => {})
        if (a instanceof Error) throw a
        return { ...a, expiresAt: now + r.leaseMs }
      },
    },
  }
}

function holderOn(
  store: ReturnType<typeof scriptedStore>['store'],
  clock: FakeClock,
  localWaitMs = 1_000,
) {
  const logs: string[] = []
  const granted: string[] = []
  const log = (level: string) => (_: unknown, message: string) => logs.push(`${level}: ${message}`)
  const logger = { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') }
  const holder = new QueueLeaseHolder(
    {
      store,
      clock,
      logger,
      owner: 'engine-1',
      leaseMs: LEASE_MS,
      localWaitMs,
      grantQueue: (queue) => granted.push(queue),
    },
    'q',
    3,
  )
  return { holder, logs, granted }
}

/** Asks for one slot; resolves with the slot, or null (the durable line). */
function ask(holder: QueueLeaseHolder, priority = 0, key = ''): Promise<LeasedSlot | null> {
  return new Promise((resolve) => holder.acquire(3, priority, key, resolve))
}

const free = (held: number): QueueLease => ({ held, expiresAt: 0, waiting: 0 })

void test('hands out at most what the store leased; the rest wait, then get freed slots', async () => {
  const clock = new FakeClock()
  const { store, calls } = scriptedStore((r) => free(Math.min(r.want, 2)))
  const { holder } = holderOn(store, clock)
  const first = await ask(holder)
  const second = await ask(holder)
  assert.ok(first !== null && second !== null, 'two slots')
  let third: LeasedSlot | null | undefined
  holder.acquire(3, 0, '', (slot) => (third = slot))
  await settle()
  assert.equal(third, undefined, 'the third waits: the store leased two')
  first.release()
  await settle()
  assert.ok(third !== undefined && third !== null, "the third got the first's slot")
  assert.deepEqual(holder.state, { held: 2, inUse: 2, waiting: 0, yielding: false })
  assert.ok(
    calls.every((c) => c.want <= 3),
    'never asks past the concurrency',
  )
})

void test('a lease not renewed in time hands out nothing more', async () => {
  const clock = new FakeClock()
  let hang = false
  const { store } = scriptedStore((r) => (hang ? 'hang' : free(Math.min(r.want, 1))))
  const { holder } = holderOn(store, clock, 10_000)
  const slot = await ask(holder)
  assert.ok(slot !== null)
  let waiter: LeasedSlot | null | undefined
  holder.acquire(3, 0, '', (s) => (waiter = s))
  await settle()
  hang = true
  // The renewals hang: the lease goes stale (at 2/3 of LEASE_MS) with the waiter in line.
  await clock.advance(LEASE_MS - 900)
  assert.equal(waiter, undefined, 'still waiting')
  slot.release()
  await settle()
  assert.equal(waiter, undefined, 'a slot freed, but the lease is stale: not handed out')
  let late: LeasedSlot | null | undefined
  holder.acquire(3, 0, '', (s) => (late = s))
  await settle()
  assert.equal(late, undefined, 'a new attempt waits too')
  await clock.advance(10_000)
  assert.deepEqual([waiter, late], [null, null], 'both take the durable line (localWaitMs)')
})

void test('a stale lease with a free slot and no one in line: a new attempt waits', async () => {
  const clock = new FakeClock()
  let hang = false
  const { store } = scriptedStore((r) => (hang ? 'hang' : free(Math.min(r.want, 2))))
  const { holder } = holderOn(store, clock)
  const a = await ask(holder)
  const b = await ask(holder)
  assert.ok(a !== null && b !== null)
  hang = true
  const c = ask(holder) // waits: the store leased 2 (the call asking for 3 hangs)
  await clock.advance(500)
  a.release()
  const cSlot = await c
  assert.ok(cSlot !== null, 'c took the freed slot while the lease was fresh')
  await clock.advance(1_600) // the lease is stale (2/3 of LEASE_MS): no renewal answered
  b.release()
  await settle()
  assert.deepEqual(holder.state, { held: 2, inUse: 1, waiting: 0, yielding: false })
  let d: LeasedSlot | null | undefined
  holder.acquire(3, 0, '', (s) => (d = s))
  await settle()
  assert.equal(d, undefined, 'a free slot, no one in line, but a stale lease: d waits')
})

void test('a call that gives slots back: nothing more is handed out until it is answered', async () => {
  const clock = new FakeClock()
  let release: (() => void) | null = null
  const applied: number[] = []
  const store = {
    grantQueueSlots: async () => ({ grants: [], throttled: [] }),
    leaseQueueSlots: async (r: QueueLeaseRequest, now: number): Promise<QueueLease> => {
      // Applied at once, as a store does; the answer comes when the test lets it.
      const held = Math.max(Math.min(r.inUse, applied.at(-1) ?? 0), Math.min(r.want, 3))
      applied.push(held)
      if (applied.length === 3) await new Promise<void>((resolve) => (release = resolve))
      return { held, expiresAt: now + r.leaseMs, waiting: 0 }
    },
  }
  const { holder } = holderOn(store, clock)
  const a = await ask(holder)
  const b = await ask(holder)
  assert.ok(a !== null && b !== null)
  a.release() // the idle return (want 1) goes out after 100 ms; its answer is held back
  await clock.advance(150)
  assert.equal(applied.at(-1), 1, 'the store applied the shrink to 1')
  let c: LeasedSlot | null | undefined
  holder.acquire(3, 0, '', (s) => (c = s))
  await settle()
  assert.equal(c, undefined, 'not handed a slot the store no longer counts')
  assert.ok(holder.state.inUse <= applied.at(-1)!, 'in use within what the store counts')
  ;(release as (() => void) | null)?.()
  await settle()
  assert.ok(c !== undefined && c !== null, 'then leased again (the next call asks for 2)')
  assert.ok(holder.state.inUse <= holder.state.held)
})

void test('a failing store sends waiters to the durable line until a renewal succeeds', async () => {
  const clock = new FakeClock()
  let fail = true
  const { store } = scriptedStore((r) => (fail ? new Error('down') : free(r.want)))
  const { holder, logs } = holderOn(store, clock)
  assert.equal(await ask(holder), null, 'the failed call sends the waiter to the durable line')
  assert.equal(await ask(holder), null, 'so does the next ask, before a renewal')
  assert.match(logs.join('\n'), /warn: cairn: could not lease queue slots/)
  fail = false
  await clock.advance(LEASE_MS) // the renewal succeeds: no durable waiters
  assert.notEqual(await ask(holder), null, 'leased again')
})

void test('a store that refuses the request: the queue takes the durable line for good', async () => {
  const clock = new FakeClock()
  const refusal = Object.assign(new Error('bad'), { code: 'E_INVALID_ARGUMENT' })
  const { store, calls } = scriptedStore(() => refusal)
  const { holder, logs } = holderOn(store, clock)
  assert.equal(await ask(holder), null)
  await clock.advance(LEASE_MS * 3)
  assert.equal(await ask(holder), null)
  assert.equal(calls.length, 1, 'asked once')
  assert.equal(logs.filter((l) => l.startsWith('error')).length, 1, 'said once, as an error')
})

void test('durable waiters: local waiters go to them, slots go back as they free, the queue is granted', async () => {
  const clock = new FakeClock()
  let waiting = 0
  const { store, calls } = scriptedStore((r) => ({
    held: Math.min(r.want, 2),
    expiresAt: 0,
    waiting,
  }))
  const { holder, granted } = holderOn(store, clock, 10_000)
  const a = await ask(holder)
  const b = await ask(holder)
  assert.ok(a !== null && b !== null)
  let local: LeasedSlot | null | undefined
  holder.acquire(3, 0, '', (s) => (local = s))
  waiting = 1
  await clock.advance(LEASE_MS / 3) // the renewal sees the durable waiter
  assert.equal(holder.state.yielding, true)
  assert.equal(local, null, 'the waiter here joined the durable line at once')
  const before = calls.length
  assert.equal(await ask(holder), null, 'a new attempt takes the durable line')
  assert.equal(calls.length, before, 'at once, without asking the store')
  a.release()
  await settle()
  assert.equal(calls.at(-1)?.want, 1, 'the freed slot went back')
  assert.ok(granted.length >= 1, 'and the queue was granted')
  b.release()
  waiting = 0
  await clock.advance(LEASE_MS / 3)
  assert.equal(holder.state.yielding, false, 'no durable waiter left')
  assert.notEqual(await ask(holder), null, 'leasing again')
})

void test('a waiter held past localWaitMs takes the durable line; idle slots go back', async () => {
  const clock = new FakeClock()
  const { store, calls } = scriptedStore((r) => free(Math.min(r.want, 1)))
  const { holder } = holderOn(store, clock)
  const a = await ask(holder)
  assert.ok(a !== null)
  const waiter = ask(holder)
  await clock.advance(1_000)
  assert.equal(await waiter, null)
  a.release()
  await clock.advance(200)
  assert.equal(calls.at(-1)?.want, 0, 'no demand: every slot back')
  assert.equal(holder.state.held, 0)
})

void test('within the holder, priority then fairness key then arrival', async () => {
  const clock = new FakeClock()
  const { store } = scriptedStore((r) => free(Math.min(r.want, 1)))
  const { holder } = holderOn(store, clock)
  const first = await ask(holder, 0, 'x')
  assert.ok(first !== null)
  const order: string[] = []
  const wait = (name: string, priority: number, key: string) =>
    holder.acquire(3, priority, key, (slot) => {
      order.push(name)
      slot?.release()
    })
  wait('x-low', -1, 'x')
  wait('x-1', 0, 'x')
  wait('x-2', 0, 'x')
  wait('y-1', 0, 'y')
  wait('high', 5, 'z')
  await settle()
  first.release()
  await settle()
  assert.deepEqual(order, ['high', 'y-1', 'x-1', 'x-2', 'x-low'])
})

void test('close gives every slot back and answers waiters with the durable line', async () => {
  const clock = new FakeClock()
  const { store, calls } = scriptedStore((r) => free(Math.min(r.want, 1)))
  const { holder } = holderOn(store, clock)
  const a = await ask(holder)
  assert.ok(a !== null)
  const waiter = ask(holder)
  await settle()
  await holder.close()
  assert.equal(await waiter, null)
  assert.equal(calls.at(-1)?.want, 0)
  assert.equal(await ask(holder), null, 'closed')
})

void test('past 10,000 fairness keys the longest served are forgotten: they rank as never served', async () => {
  const clock = new FakeClock()
  const { store } = scriptedStore((r) => free(Math.min(r.want, 1)))
  const { holder } = holderOn(store, clock)
  // k0 is served first, then 10,000 other keys: the history would hold 10,001.
  for (let i = 0; i <= 10_000; i++) {
    const slot = await ask(holder, 0, `k${i}`)
    assert.ok(slot !== null)
    slot.release()
  }
  const busy = await ask(holder, 0, 'k10000')
  assert.ok(busy !== null)
  const order: string[] = []
  for (const key of ['k0', 'fresh'])
    holder.acquire(3, 0, key, (slot) => {
      order.push(key)
      slot?.release()
    })
  await settle()
  busy.release()
  await settle()
  // Remembered, k0 (served) would follow `fresh` (never served); forgotten, they tie and
  // arrival decides.
  assert.deepEqual(order, ['k0', 'fresh'])
})
