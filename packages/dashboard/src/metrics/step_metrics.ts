/**
 * Step attempts: a duration histogram by workflow, step and outcome (`completed`, `failed`
 * — the final failure — or `retried`: a failed attempt that will be tried again), and a
 * retry counter. Durations are the events' `durationMs`, in seconds.
 */
import { Counter, Histogram } from 'prom-client'
import { STEP_DURATION_BUCKETS } from './buckets.ts'
import type { MetricsContext, Unsubscribe } from './context.ts'

type Outcome = 'completed' | 'failed' | 'retried'

export function stepMetrics(ctx: MetricsContext): Unsubscribe {
  const durations = new Histogram({
    name: `${ctx.prefix}step_duration_seconds`,
    help: 'Duration of step attempts, by outcome (completed, failed, retried).',
    labelNames: ['workflow', 'step', 'outcome'],
    buckets: [...STEP_DURATION_BUCKETS],
    registers: [ctx.registry],
  })
  const retries = new Counter({
    name: `${ctx.prefix}step_retries_total`,
    help: 'Failed step attempts that will be retried.',
    labelNames: ['workflow', 'step'],
    registers: [ctx.registry],
  })
  const labels = (e: { workflow: string; name: string }) => ({
    workflow: ctx.workflows.of(e.workflow),
    step: ctx.steps.of(e.name),
  })
  const observe =
    (outcome: Outcome) => (e: { workflow: string; name: string; durationMs: number }) =>
      durations.observe({ ...labels(e), outcome }, e.durationMs / 1000)
  const stops = [
    ctx.engine.on('step:completed', observe('completed')),
    ctx.engine.on('step:failed', observe('failed')),
    ctx.engine.on('step:retried', observe('retried')),
    ctx.engine.on('step:retried', (e) => retries.inc(labels(e))),
  ]
  return () => stops.forEach((stop) => stop())
}
