/**
 * Schedules: 0,30 2 * * * Europe/Paris fires each local time once at fall-back; 0 1,2 * * * America/New_York fires 01:00 once at fall-back.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

void test('0,30 2 * * * Europe/Paris fires each local time once at fall-back', async () => {
  const w = world(Date.parse('2026-10-24T22:00:00Z'))
  try {
    const engine = await w.engine()
    engine.register('nightly', 1, async () => null)
    await engine.schedule('n', {
      workflow: 'nightly',
      cron: '0,30 2 * * *',
      timezone: 'Europe/Paris',
      overlap: 'allow',
    })
    for (let i = 0; i < 10; i++) await w.skip(30 * 60_000) // to 03:00Z
    const { runs } = await engine.listRuns({ workflow: 'nightly', limit: 100 })
    assert.deepEqual(
      runs.map((r) => r.id).sort(),
      ['sch:n:2026-10-25T00:00:00.000Z', 'sch:n:2026-10-25T00:30:00.000Z'],
      '02:00 and 02:30 CEST, not again in CET',
    )
    assert.equal(runs.length, 2, 'one run at 02:00 and one at 02:30 local')
  } finally {
    await w.close()
  }
})

void test('0 1,2 * * * America/New_York fires 01:00 once at fall-back', async () => {
  const w = world(Date.parse('2026-11-01T03:00:00Z'))
  try {
    const engine = await w.engine()
    engine.register('nightly', 1, async () => null)
    await engine.schedule('n', {
      workflow: 'nightly',
      cron: '0 1,2 * * *',
      timezone: 'America/New_York',
      overlap: 'allow',
    })
    for (let i = 0; i < 12; i++) await w.skip(30 * 60_000)
    const { runs } = await engine.listRuns({ workflow: 'nightly', limit: 100 })
    assert.equal(runs.length, 2, 'one run at 01:00 and one at 02:00 local')
  } finally {
    await w.close()
  }
})
