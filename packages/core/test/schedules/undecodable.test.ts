/**
 * Schedules: a schedule whose spec cannot be decoded does not hide the others.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

void test('a schedule whose spec cannot be decoded does not hide the others', async () => {
  const w = world()
  try {
    const engine = await w.engine()
    engine.register('report', 1, async () => null)
    await engine.schedule('a-good', { workflow: 'report', everyMs: 60_000 })
    const good = await w.store.getSchedule('a-good')
    const spec = JSON.parse(good!.spec)
    await w.store.putSchedule({
      id: 'b-bad',
      workflow: 'report',
      version: null,
      paused: false,
      nextAt: null,
      now: w.clock.now(),
      spec: JSON.stringify({
        ...spec,
        everyMs: null,
        anchor: null,
        cron: '0 3 * * *',
        timezone: 'America/Ciudad_Juarez_2099',
      }),
    })
    await engine.schedule('c-good', { workflow: 'report', everyMs: 60_000 })
    let listed: string[] | undefined
    try {
      listed = (await engine.listSchedules()).map((s) => s.id)
    } catch {
      // refused: what matters is the listing below
    }
    try {
      await engine.getSchedule('b-bad')
    } catch {
      // refused: what matters is the listing below
    }
    try {
      await engine.pauseSchedule('b-bad')
    } catch {
      // refused: what matters is the listing below
    }
    assert.deepEqual(listed, ['a-good', 'b-bad', 'c-good'])
  } finally {
    await w.close()
  }
})
