/**
 * QueueRetries (engine/queue_retries.ts): one timer per throttled queue at the earliest time
 * it was told; at that time it asks the store to grant, hands the grants to the turns holding
 * their runs and wakes the driver, and sets the next timer from the store's answer; a failed
 * call is retried; nothing fires after close. The store here is a script of answers, so the
 * test reads exactly which calls the timers made and when.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { QueueGrantReport, SlotGrant } from '../src/contracts/state_store.ts'
import { QueueRetries } from '../src/engine/queue_retries.ts'
import { LiveGrants } from '../src/execution/live_grants.ts'
import { silentLogger } from '../src/engine/default_logger.ts'
import { FakeClock } from '../src/testing/fake_clock.ts'

const GRANT: SlotGrant = { runId: 'r1', seq: 2, attempt: 1, inboxSeq: 1 }

function harness(answers: Array<QueueGrantReport | Error>) {
  const clock = new FakeClock(1_000)
  const calls: Array<{ queues: readonly string[]; now: number }> = []
  const store = {
    grantQueueSlots: async (queues: readonly string[], now: number) => {
      calls.push({ queues, now })
      const answer = answers.shift() ?? { grants: [], throttled: [] }
      if (answer instanceof Error) throw answer
      return answer
    },
  }
  const woken: number[] = []
  const handed: SlotGrant[] = []
  const liveGrants = new LiveGrants()
  liveGrants.register(GRANT.runId, GRANT.seq, (grant) => handed.push(grant))
  const retries = new QueueRetries({
    options: { store: store as never, clock, logger: silentLogger },
    liveGrants,
    wake: (at) => woken.push(at),
  })
  return { clock, calls, woken, handed, retries }
}

void test('one timer per queue, at the earliest time told; it grants then', async () => {
  const { clock, calls, woken, handed, retries } = harness([{ grants: [GRANT], throttled: [] }])
  retries.note([{ queue: 'q', retryAt: 1_500 }])
  retries.note([{ queue: 'q', retryAt: 1_200 }])
  retries.note([{ queue: 'q', retryAt: 1_900 }])
  assert.deepEqual([...retries.pending], [['q', 1_200]], 'the earliest is kept')
  await clock.advance(199)
  assert.equal(calls.length, 0, 'not before its time')
  await clock.advance(1)
  assert.deepEqual(calls, [{ queues: ['q'], now: 1_200 }], 'one call, at the time')
  assert.deepEqual(handed, [GRANT], 'the grant goes to the turn holding its run')
  assert.deepEqual(woken, [1_200], 'and the driver looks')
  await clock.advance(10_000)
  assert.equal(calls.length, 1, 'the later times told were the same queue: no second call')
})

void test("the store's answer sets the next timer; a failure retries a second later", async () => {
  const { clock, calls, retries } = harness([
    { grants: [], throttled: [{ queue: 'q', retryAt: 1_300 }] },
    new Error('store down'),
    { grants: [], throttled: [] },
  ])
  retries.note([{ queue: 'q', retryAt: 1_100 }])
  await clock.advance(100)
  await clock.advance(200)
  assert.deepEqual(
    calls.map((c) => c.now),
    [1_100, 1_300],
    'the pass at 1100 was stopped again until 1300',
  )
  await clock.advance(999)
  assert.equal(calls.length, 2, 'the failed call is retried after a second, not before')
  await clock.advance(1)
  assert.deepEqual(
    calls.map((c) => c.now),
    [1_100, 1_300, 2_300],
  )
  await clock.advance(60_000)
  assert.equal(calls.length, 3, 'nothing throttled: no more calls')
})

void test('queues are timed apart, and nothing fires after close', async () => {
  const { clock, calls, retries } = harness([])
  retries.note([
    { queue: 'a', retryAt: 1_100 },
    { queue: 'b', retryAt: 1_050 },
  ])
  await clock.advance(100)
  assert.deepEqual(
    calls.map((c) => [c.queues[0], c.now]),
    [
      ['b', 1_050],
      ['a', 1_100],
    ],
  )
  retries.note([{ queue: 'a', retryAt: 1_500 }])
  retries.close()
  retries.note([{ queue: 'b', retryAt: 1_600 }])
  await clock.advance(10_000)
  assert.equal(calls.length, 2, 'closed: no timer fired, none set')
})
