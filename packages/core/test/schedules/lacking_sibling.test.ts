/**
 * Schedules: a schedule whose input function no live engine has does not hold up a sibling
 * schedule of the same workflow (stored input): that one fires every window, on time.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { world } from './world.ts'

const S = 1_000

void test('a lacking schedule does not delay a sibling schedule of the same workflow', async () => {
  const w = world()
  try {
    const old = await w.engine({
      leaseMs: 30_000,
      schedules: [{ id: 'a', workflow: 'report', everyMs: 60 * S, input: () => 'computed' }],
    })
    old.register('report', 1, async () => null)
    await old.close(50)
    const e = await w.engine({
      leaseMs: 30_000,
      schedules: [{ id: 'b', workflow: 'report', everyMs: 5 * S, input: 'static' }],
    })
    e.register('report', 1, async () => null)
    const lags: number[] = []
    e.on('schedule:fired', (ev) => {
      if (ev.scheduleId === 'b') lags.push(ev.lagMs)
    })
    const skips: string[] = []
    e.on('schedule:skipped', (ev) => {
      if (ev.scheduleId === 'b') skips.push(`${ev.reason}x${ev.count}`)
    })
    for (let i = 0; i < 36; i++) await w.skip(5 * S)
    const info = await e.getSchedule('b')
    assert.equal(info?.skipped, 0, `no window of b is skipped (${skips.join(', ')})`)
    assert.ok(
      lags.every((lag) => lag < 2_000),
      `b fires on time (lags ${lags.join(', ')})`,
    )
  } finally {
    await w.close()
  }
})
