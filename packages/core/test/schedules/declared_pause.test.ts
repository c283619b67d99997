/**
 * Schedules: a redeploy with a changed declaration keeps the operator's pause.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

const MINUTE = 60_000

void test("a redeploy with a changed declaration keeps the operator's pause", async () => {
  const w = world()
  try {
    const declare = (input: number) => ({
      schedules: [{ id: 'd', workflow: 'report', everyMs: MINUTE, input, paused: false }],
    })
    const first = await w.engine(declare(1))
    first.register('report', 1, async () => null)
    await w.skip(MINUTE)
    await first.pauseSchedule('d')
    await first.close()
    await w.skip(10 * MINUTE + 30_000)
    const second = await w.engine(declare(2)) // redeploy: the input changed
    second.register('report', 1, async () => null)
    await w.skip(1_000)
    const info = await second.getSchedule('d')
    assert.equal(info?.paused, true, "the operator's pause stands")
  } finally {
    await w.close()
  }
})
