/**
 * Queue rates (QueueRequest.rateLimit): at most `limit` grants in any interval of `periodMs`,
 * by the `now` of the writes that grant; a pass the rate stops says when the next grant is
 * possible (OpResult.throttled, QueueGrantReport.throttled), and nothing grants before a
 * write or grantQueueSlots asks at or after that time.
 */
import assert from 'node:assert/strict'
import type { Fence, OpResult, QueueRateLimit, StoreOp } from '@cairn/core/contracts'
import { T0, checkpoint } from './fixtures.ts'
import { expectRejection, same, type Define } from './harness.ts'
import {
  Q,
  SEQ,
  enqueue,
  enqueueOp,
  grantedAmong,
  line,
  noteOwnGrant,
  release,
  request,
  stats,
} from './queue_fixtures.ts'
import { applyOne, expectApplied, startRun } from './store_calls.ts'

const PERIOD = 1_000
const rated = (limit: number, concurrency = 10, periodMs = PERIOD) =>
  request({ concurrency, rateLimit: { limit, periodMs } })

function throttledOf(result: OpResult | undefined): unknown {
  return result?.status === 'applied' ? result.throttled : undefined
}

/** The save recording the attempt's outcome, releasing its slot (no bookkeeping: see release). */
function releaseOp(fence: Fence): StoreOp {
  const cp = checkpoint(fence.runId, SEQ, { kind: 'step' })
  return { type: 'saveCheckpoint', fence, checkpoint: cp, release: Q }
}

/** The run ids of a grant report's grants, sorted. */
function grantedRuns(report: { grants: readonly { runId: string }[] }): string[] {
  return report.grants.map((g) => g.runId).sort()
}

export function queueRateTests(define: Define): void {
  define('a rate grants at most `limit` per period, by the grants’ times', async (store) => {
    const ids = ['a', 'b', 'c', 'd']
    const fences: Fence[] = []
    const results: Array<OpResult | undefined> = []
    for (const [i, id] of ids.entries()) {
      const fence = await startRun(store, id)
      fences.push(fence)
      const result = await applyOne(store, enqueueOp(fence, rated(2)), T0 + i)
      noteOwnGrant(store, id, result)
      results.push(result)
    }
    same(await grantedAmong(store, ids), ['a', 'b'], 'two grants in the first period')
    same(throttledOf(results[1]), undefined, 'b was granted: nothing throttled')
    same(throttledOf(results[2]), [{ queue: Q, retryAt: T0 + PERIOD }], 'c: when a’s grant ages')
    same(throttledOf(results[3]), [{ queue: Q, retryAt: T0 + PERIOD }], 'd too')
    const early = await store.grantQueueSlots([Q], T0 + PERIOD - 1)
    same(early, { grants: [], throttled: [{ queue: Q, retryAt: T0 + PERIOD }] }, 'not yet')
    const first = await store.grantQueueSlots([Q], T0 + PERIOD)
    same(grantedRuns(first), ['c'], 'one grant when a’s has aged')
    same(first.throttled, [{ queue: Q, retryAt: T0 + 1 + PERIOD }], 'the next when b’s has')
    const second = await store.grantQueueSlots([Q], T0 + 1 + PERIOD)
    same(grantedRuns(second), ['d'], 'then d')
    same(second.throttled, [], 'nobody waits: nothing throttled')
    same(
      await stats(store, Q, T0 + 1 + PERIOD),
      {
        queue: Q,
        concurrency: 10,
        granted: 4,
        leased: 0,
        waiting: 0,
        oldestWaitingSince: null,
        rateLimit: { limit: 2, periodMs: PERIOD },
        recentGrants: 2,
        throttled: 0,
      },
      'two grants in the last period (c, d)',
    )
    const later = await stats(store, Q, T0 + 1 + 2 * PERIOD)
    same([later.recentGrants, later.throttled], [0, 0], 'a period later, none is recent')
  })

  define('a release frees a slot, not the rate: the next grant waits for it', async (store) => {
    const [a, b] = await line(store, ['a', 'b', 'c'], () => rated(2, 1))
    await release(store, a as Fence, T0 + 10)
    same(await grantedAmong(store, ['b', 'c']), ['b'], 'b takes the slot (the 2nd grant)')
    const freed = await applyOne(store, releaseOp(b as Fence), T0 + 20)
    expectApplied(freed, 'release b')
    same(throttledOf(freed), [{ queue: Q, retryAt: T0 + PERIOD }], 'c throttled by the rate')
    same(await grantedAmong(store, ['c']), [], 'c waits beside a free slot')
    const seen = await stats(store, Q, T0 + 20)
    same(
      { granted: seen.granted, waiting: seen.waiting, recent: seen.recentGrants },
      { granted: 0, waiting: 1, recent: 2 },
      'a free slot, one waiter, two recent grants',
    )
    assert.equal(seen.throttled, 1, 'the waiter is throttled')
    same(grantedRuns(await store.grantQueueSlots([Q], T0 + PERIOD)), ['c'], 'granted on time')
  })

  define('full slots are not a throttle: only a stopped grant is reported', async (store) => {
    const [a] = await line(store, ['a', 'b'], () => rated(1, 1))
    assert.equal((await stats(store, Q, T0 + 5)).throttled, 0, 'b waits for the slot, not the rate')
    const freed = await applyOne(store, releaseOp(a as Fence), T0 + 5)
    same(throttledOf(freed), [{ queue: Q, retryAt: T0 + PERIOD }], 'now the rate stops b')
  })

  define('ends report the throttle too: a cancel of the holder', async (store) => {
    await line(store, ['a', 'b'], () => rated(1, 1))
    const cancelled = await applyOne(store, { type: 'cancelRun', runId: 'a', error: '"x"' }, T0 + 7)
    expectApplied(cancelled, 'cancel a')
    same(throttledOf(cancelled), [{ queue: Q, retryAt: T0 + PERIOD }], 'b throttled')
    same(grantedRuns(await store.grantQueueSlots([Q], T0 + PERIOD)), ['b'], 'then granted')
  })

  define('a pass grants up to the rate at once, never beyond it', async (store) => {
    const ids = Array.from({ length: 8 }, (_, i) => `r${i}`)
    await line(store, ids, () => rated(3, 1))
    // One slot: r0 holds it. Raise the concurrency: the pass is bounded by the rate instead.
    const e = await startRun(store, 'e')
    const raised = await applyOne(store, enqueueOp(e, rated(3, 100)), T0 + 20)
    noteOwnGrant(store, 'e', raised)
    same(await grantedAmong(store, [...ids, 'e']), ['r0', 'r1', 'r2'], 'three in the period')
    same(throttledOf(raised), [{ queue: Q, retryAt: T0 + PERIOD }], 'stopped at the fourth')
    const early = await store.grantQueueSlots([Q], T0 + PERIOD + 5)
    same(grantedRuns(early), ['r3'], 'r0’s grant has aged, r1’s and r2’s not yet')
    same(early.throttled, [{ queue: Q, retryAt: T0 + 20 + PERIOD }], 'when r1’s has')
    const next = await store.grantQueueSlots([Q], T0 + PERIOD + 20)
    same(grantedRuns(next), ['r4', 'r5'], 'r1’s and r2’s have aged')
    same(next.throttled, [{ queue: Q, retryAt: T0 + 5 + 2 * PERIOD }], 'then r3’s, this period’s')
  })

  define('racing enqueues never exceed the rate', async (store) => {
    const ids = Array.from({ length: 12 }, (_, i) => `r${i}`)
    const fences: Fence[] = []
    for (const id of ids) fences.push(await startRun(store, id))
    const results = await Promise.all(
      fences.map((fence) => store.applyBatch([enqueueOp(fence, rated(3, 12))], T0)),
    )
    results.forEach(([r], i) => noteOwnGrant(store, ids[i] as string, r))
    assert.equal((await grantedAmong(store, ids)).length, 3, 'three grants, whoever raced')
    const later = await store.grantQueueSlots([Q], T0 + PERIOD)
    assert.equal(later.grants.length, 3, 'three more a period later')
    assert.equal((await grantedAmong(store, ids)).length, 6)
  })

  define('the newest rate counts the grants logged under the old one', async (store) => {
    await line(store, ['a', 'b'], () => rated(2))
    const c = await startRun(store, 'c')
    await enqueue(store, c, rated(3), T0 + 2)
    const d = await startRun(store, 'd')
    const stopped = await applyOne(store, enqueueOp(d, rated(3)), T0 + 3)
    same(throttledOf(stopped), [{ queue: Q, retryAt: T0 + PERIOD }], 'raised to 3: 3 in a period')
    const e = await startRun(store, 'e')
    const lowered = await applyOne(store, enqueueOp(e, rated(1)), T0 + 4)
    same(throttledOf(lowered), [{ queue: Q, retryAt: T0 + 2 + PERIOD }], 'lowered: c’s grant')
    same(await grantedAmong(store, ['a', 'b', 'c', 'd', 'e']), ['a', 'b', 'c'], 'granted')
  })

  define(
    'a longer period or a larger limit counts the grants pruned from the log',
    async (store) => {
      const short = { limit: 2, periodMs: 100 }
      const at = async (id: string, rate: QueueRateLimit, now: number) => {
        const fence = await startRun(store, id)
        const result = await applyOne(
          store,
          enqueueOp(fence, request({ concurrency: 100, rateLimit: rate })),
          now,
        )
        noteOwnGrant(store, id, result)
        return result
      }
      for (const [i, id] of ['r0', 'r1', 'r2', 'r3'].entries()) await at(id, short, T0 + i)
      same(grantedRuns(await store.grantQueueSlots([Q], T0 + 100)), ['r2'], 'r0’s grant aged')
      same(grantedRuns(await store.grantQueueSlots([Q], T0 + 101)), ['r3'], 'r1’s grant aged')
      // The log now holds the last two grants (T0+100, T0+101): the older ones left it.
      await at('r4', short, T0 + 300)
      same(await grantedAmong(store, ['r4']), ['r4'], 'r2’s grant aged too')
      // A longer period looks back at a grant the log holds: exact.
      const longer = await at('r5', { limit: 2, periodMs: 1000 }, T0 + 301)
      same(throttledOf(longer), [{ queue: Q, retryAt: T0 + 101 + 1000 }], 'r3’s grant (T0+101)')
      // A larger limit as well looks back at r0's grant (T0), pruned: it counts as made when the
      // oldest grant the log holds was (r3's, T0+101) — later than it was, never earlier. Five
      // grants fell in the last 1000 ms: none may be made now.
      const larger = await at('r6', { limit: 5, periodMs: 1000 }, T0 + 302)
      same(throttledOf(larger), [{ queue: Q, retryAt: T0 + 101 + 1000 }], 'not before r3’s ages')
      same(await grantedAmong(store, ['r5', 'r6']), [], 'nobody granted in the period')
      same((await store.grantQueueSlots([Q], T0 + 1100)).grants, [], 'not yet')
      same(grantedRuns(await store.grantQueueSlots([Q], T0 + 1101)), ['r5', 'r6'], 'then both')
    },
  )

  define(
    'a queue without a rate logs nothing: a rate set later counts from then',
    async (store) => {
      await line(store, ['a', 'b', 'c'], () => request({ concurrency: 10 }))
      const d = await startRun(store, 'd')
      await enqueue(store, d, rated(1), T0 + 3)
      const e = await startRun(store, 'e')
      const stopped = await applyOne(store, enqueueOp(e, rated(1)), T0 + 4)
      same(await grantedAmong(store, ['a', 'b', 'c', 'd', 'e']), ['a', 'b', 'c', 'd'], 'granted')
      same(throttledOf(stopped), [{ queue: Q, retryAt: T0 + 3 + PERIOD }], 'd’s grant counts')
      const f = await startRun(store, 'f')
      const none = await applyOne(store, enqueueOp(f, request({ concurrency: 10 })), T0 + 5)
      noteOwnGrant(store, 'f', none)
      same(throttledOf(none), undefined, 'the rate removed: f waits for nothing but a slot')
      same(await grantedAmong(store, ['e', 'f']), ['e', 'f'], 'both granted at once')
    },
  )

  define('bad rates are refused and nothing in the batch applies', async (store) => {
    const fence = await startRun(store, 'r')
    const other = await startRun(store, 'other')
    const bad: Array<[string, unknown]> = [
      ['missing', undefined],
      ['limit 0', { limit: 0, periodMs: 1000 }],
      ['limit NaN', { limit: Number.NaN, periodMs: 1000 }],
      ['limit 1.5', { limit: 1.5, periodMs: 1000 }],
      ['limit too big', { limit: 100_001, periodMs: 1000 }],
      ['period 0', { limit: 1, periodMs: 0 }],
      ['period a string', { limit: 1, periodMs: '1000' }],
      ['period Infinity', { limit: 1, periodMs: Number.POSITIVE_INFINITY }],
      ['an array', [1, 1000]],
      ['an extra key', { limit: 1, periodMs: 1000, burst: 2 }],
      ['a __proto__ key', JSON.parse('{"limit":1,"periodMs":1000,"__proto__":{}}')],
    ]
    for (const [what, rateLimit] of bad) {
      const op = enqueueOp(fence, { ...request(), rateLimit: rateLimit as QueueRateLimit })
      await expectRejection(
        () => store.applyBatch([enqueueOp(other), op], T0),
        'E_INVALID_ARGUMENT',
        what,
      )
    }
    same(await store.queueStats([Q], T0), [], 'nothing was enqueued')
  })
}
