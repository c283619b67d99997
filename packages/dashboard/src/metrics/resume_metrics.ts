/**
 * How this engine's claimed runs resumed (`run:resumed`): from the run cache, their body kept
 * paused here, or by replaying their history — and how many suspended runs the cache holds.
 * The share of `cache` among resumes is what sizing `maxCachedRuns` is about
 * (docs/run-cache.md).
 */
import { Counter, Gauge } from 'prom-client'
import type { MetricsContext, Unsubscribe } from './context.ts'

export function resumeMetrics(ctx: MetricsContext): Unsubscribe {
  const resumed = new Counter({
    name: `${ctx.prefix}runs_resumed_total`,
    help: 'Turns of runs that had run before: from the run cache (from="cache") or replayed (from="history").',
    labelNames: ['workflow', 'from'],
    registers: [ctx.registry],
  })
  new Gauge({
    name: `${ctx.prefix}run_cache_runs`,
    help: 'Suspended runs this engine keeps in memory for its next claim of them (maxCachedRuns).',
    registers: [ctx.registry],
    collect() {
      this.set(ctx.engine.cachedRuns)
    },
  })
  return ctx.engine.on('run:resumed', (e) => {
    resumed.inc({ workflow: ctx.workflows.of(e.workflow), from: e.from })
  })
}
