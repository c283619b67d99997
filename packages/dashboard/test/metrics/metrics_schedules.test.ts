/**
 * createMetrics and schedules, on every store: windows fired and skipped (by reason, counted
 * by the window), the lag of each start after its window's time, and schedule ids beyond
 * maxSchedules counted as `_other`.
 */
import assert from 'node:assert/strict'
import { createMetrics } from '../../src/metrics/index.ts'
import { eachStore } from '../../../../tests/helpers/harness.ts'
import { parseExposition, samplesOf, valueOf } from './exposition.ts'

const MINUTE = 60_000

eachStore('metrics schedules', (test) => {
  test('fired, skipped by reason and lag follow the windows', async (env) => {
    const writer = await env.engine({ drive: false })
    // A downtime: nobody drives for 3.5 windows, then the newest is started 30 s late and
    // the two before it are passed over (maxCatchup 0).
    await writer.schedule('late', { workflow: 'job', everyMs: MINUTE, overlap: 'allow' })
    await env.skip(3 * MINUTE + 30_000)
    const engine = await env.engine({ drive: false })
    engine.register('job', 1, async () => 'done')
    engine.register('hold', 1, async (ctx) => ctx.waitForSignal('go'))
    const metrics = createMetrics(engine)
    await engine.startDriving()
    await env.settle()
    // Overlap: the first window's run holds, the next two are passed over.
    await engine.schedule('held', { workflow: 'hold', everyMs: MINUTE })
    await env.skip(3 * MINUTE)

    const scraped = parseExposition(await metrics.render())
    assert.equal(scraped.types.get('cairn_schedules_fired_total'), 'counter')
    assert.equal(scraped.types.get('cairn_schedules_skipped_total'), 'counter')
    assert.equal(scraped.types.get('cairn_schedule_lag_seconds'), 'histogram')
    const fired = (schedule: string) =>
      valueOf(scraped, 'cairn_schedules_fired_total', { schedule })
    const skipped = (schedule: string, reason: string) =>
      valueOf(scraped, 'cairn_schedules_skipped_total', { schedule, reason })
    // The late one fired at its catch-up and at each of the three windows since.
    assert.equal(fired('late'), 4)
    assert.equal(skipped('late', 'backfill'), 2)
    assert.equal(fired('held'), 1)
    assert.equal(skipped('held', 'overlap'), 2)
    assert.equal(
      samplesOf(scraped, 'cairn_schedules_skipped_total').length,
      2,
      'no series for reasons that never happened',
    )
    const info = await engine.getSchedule('held')
    assert.deepEqual([info?.fired, info?.skipped], [1, 2], 'the metrics agree with the schedule')

    const lag = (suffix: string, labels: Record<string, string>) =>
      valueOf(scraped, `cairn_schedule_lag_seconds_${suffix}`, labels)
    assert.equal(lag('count', { schedule: 'late' }), 4)
    assert.equal(lag('sum', { schedule: 'late' }), 30, 'only the catch-up start was late')
    assert.equal(lag('bucket', { schedule: 'late', le: '10' }), 3)
    assert.equal(lag('bucket', { schedule: 'late', le: '30' }), 4)
    assert.equal(lag('count', { schedule: 'held' }), 1)
    metrics.close()
  })

  test('schedule ids beyond maxSchedules count as _other', async (env) => {
    const engine = await env.engine({ drive: false })
    engine.register('job', 1, async () => 'done')
    const metrics = createMetrics(engine, { maxSchedules: 1 })
    await engine.startDriving()
    for (const id of ['a', 'b', 'c'])
      await engine.schedule(id, { workflow: 'job', everyMs: MINUTE })
    await env.skip(MINUTE)
    const scraped = parseExposition(await metrics.render())
    const fired = samplesOf(scraped, 'cairn_schedules_fired_total').map((s) => [
      s.labels.schedule,
      s.value,
    ])
    // The first schedule to fire takes the one label (they fire at once: any of the three);
    // the other two count under `_other`.
    const named = fired.filter(([schedule]) => schedule !== '_other')
    assert.equal(named.length, 1, JSON.stringify(fired))
    assert.ok(['a', 'b', 'c'].includes(named[0]?.[0] as string), JSON.stringify(fired))
    assert.equal(named[0]?.[1], 1, 'its one window')
    assert.deepEqual(fired.sort(), [['_other', 2], named[0]].sort())
    metrics.close()
  })
})
