/**
 * Schedules (docs/schedules.md), fed by the engine's events where a window was handled — the
 * process whose engine fired the schedule: windows that started their run, by schedule;
 * windows passed over, by schedule and reason (`overlap`, `backfill`, `input`, `refused`),
 * counted by the windows (an event's `count`); and the lag of each start after its window's
 * time (jitter, downtime, a slow claim), in seconds. Sum over your processes for the system.
 */
import { Counter, Histogram } from 'prom-client'
import { SCHEDULE_LAG_BUCKETS } from './buckets.ts'
import type { MetricsContext, Unsubscribe } from './context.ts'

export function scheduleMetrics(ctx: MetricsContext): Unsubscribe {
  const fired = new Counter({
    name: `${ctx.prefix}schedules_fired_total`,
    help: 'Schedule windows that started their run, in this process.',
    labelNames: ['schedule'],
    registers: [ctx.registry],
  })
  const skipped = new Counter({
    name: `${ctx.prefix}schedules_skipped_total`,
    help: 'Schedule windows passed over (overlap, backfill, input, refused), in this process.',
    labelNames: ['schedule', 'reason'],
    registers: [ctx.registry],
  })
  const lag = new Histogram({
    name: `${ctx.prefix}schedule_lag_seconds`,
    help: "How long after its window's time a schedule's run was started.",
    labelNames: ['schedule'],
    buckets: [...SCHEDULE_LAG_BUCKETS],
    registers: [ctx.registry],
  })
  const stops = [
    ctx.engine.on('schedule:fired', (e) => {
      const labels = { schedule: ctx.schedules.of(e.scheduleId) }
      fired.inc(labels)
      lag.observe(labels, Math.max(0, e.lagMs) / 1000)
    }),
    ctx.engine.on('schedule:skipped', (e) =>
      skipped.inc({ schedule: ctx.schedules.of(e.scheduleId), reason: e.reason }, e.count),
    ),
  ]
  return () => stops.forEach((stop) => stop())
}
