import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PollSchedule } from '../src/engine/poll_schedule.ts'
import { FakeClock, settle } from '../src/testing/fake_clock.ts'

void test('polls back off while they find nothing and come back soon after one that found work', async () => {
  const clock = new FakeClock(0)
  const found = [3, 0, 0, 0, 0, 0, 0, 0, 2, 0]
  const times: number[] = []
  let i = 0
  const schedule: PollSchedule = new PollSchedule(clock, 500, async () => {
    times.push(clock.now())
    schedule.afterPoll(null, found[i++] ?? 0)
  })
  schedule.now()
  await settle()
  while (times.length < found.length) {
    const due = clock.nextDue()
    assert.ok(due !== null, 'a next poll is always scheduled')
    await clock.advanceTo(due)
  }
  schedule.stop()
  const gaps = times.slice(1).map((t, k) => t - (times[k] as number))
  // After work: 25 ms; then doubling while empty, capped at the 500 ms safety net; work again: 25 ms.
  assert.deepEqual(gaps, [25, 50, 100, 200, 400, 500, 500, 500, 25])
})

void test('a known due time comes first, whatever the back-off', async () => {
  const clock = new FakeClock(0)
  const times: number[] = []
  const schedule: PollSchedule = new PollSchedule(clock, 1_000, async () => {
    times.push(clock.now())
    if (times.length === 1) schedule.afterPoll(7, 0)
  })
  schedule.now()
  await settle()
  await clock.advanceTo(10)
  schedule.stop()
  assert.deepEqual(times, [0, 7])
})
