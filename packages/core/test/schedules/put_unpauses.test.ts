/**
 * Schedules: a put that un-pauses fires no window from the paused period.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

const MINUTE = 60_000

void test('a put that un-pauses fires no window from the paused period', async () => {
  const w = world()
  try {
    const engine = await w.engine()
    engine.register('report', 1, async () => null)
    await engine.schedule('s', { workflow: 'report', everyMs: MINUTE, input: 1 })
    await w.skip(MINUTE) // W1 fires
    await engine.pauseSchedule('s')
    await w.skip(10 * MINUTE + 30_000)
    const putAt = w.clock.now()
    await engine.schedule('s', { workflow: 'report', everyMs: MINUTE, input: 2 })
    await w.skip(1_000)
    const { runs } = await engine.listRuns({ workflow: 'report', limit: 100 })
    const during = runs.filter(
      (r) =>
        Date.parse(r.id.slice('sch:s:'.length)) < putAt &&
        Date.parse(r.id.slice('sch:s:'.length)) > Date.parse('2030-01-01T00:01:00Z'),
    )
    assert.deepEqual(
      during.map((r) => r.id),
      [],
      'no run for a window of the paused period',
    )
  } finally {
    await w.close()
  }
})
