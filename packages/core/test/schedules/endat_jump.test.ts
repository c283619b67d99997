/**
 * Schedules: no window after endAt, even after a downtime of more than 1,000 windows.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

void test('no window after endAt, even after a downtime of more than 1,000 windows', async () => {
  const w = world()
  try {
    const writer = await w.engine({ drive: false })
    const t0 = w.clock.now()
    const endAt = t0 + 2_000_000 // 2,000 windows of 1 s
    await writer.schedule('s', { workflow: 'report', everyMs: 1_000, endAt })
    await w.skip(3_000_000) // nobody drives past endAt
    const engine = await w.engine()
    engine.register('report', 1, async () => null)
    await w.skip(1_000)
    const { runs } = await engine.listRuns({ workflow: 'report', limit: 100 })
    const late = runs.filter((r) => Date.parse(r.id.slice('sch:s:'.length)) > endAt)
    assert.deepEqual(
      late.map((r) => r.id),
      [],
      'no run of a window after endAt',
    )
  } finally {
    await w.close()
  }
})
