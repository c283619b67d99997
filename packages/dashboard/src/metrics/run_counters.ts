/**
 * Run lifecycle counters, by workflow, fed by the engine's events. Each process counts what
 * it saw: `started` where the run was created (engine.start, a child start, a continueAsNew
 * successor, a retry with edited input or a fork), the endings where the run executed — sum
 * over your processes (PromQL `sum by (workflow)`) for the whole system.
 */
import { Counter } from 'prom-client'
import type { MetricsContext, Unsubscribe } from './context.ts'

const ENDINGS = [
  [
    'started',
    'run:started',
    'Runs created in this process (starts, child runs, continueAsNew successors, retries with edited input, forks).',
  ],
  ['completed', 'run:completed', 'Runs that completed, in this process.'],
  ['failed', 'run:failed', 'Runs that failed, in this process.'],
  ['cancelled', 'run:cancelled', 'Runs cancelled, as seen by this process.'],
  [
    'dead',
    'run:dead',
    'Runs this process ended dead (maxRecoveryAttempts takeovers without moving on).',
  ],
  ['continued', 'run:continued', 'Runs that ended with ctx.continueAsNew, in this process.'],
] as const

export function runCounters(ctx: MetricsContext): Unsubscribe {
  const stops = ENDINGS.map(([word, event, help]) => {
    const counter = new Counter({
      name: `${ctx.prefix}runs_${word}_total`,
      help,
      labelNames: ['workflow'],
      registers: [ctx.registry],
    })
    return ctx.engine.on(event, (e) => counter.inc({ workflow: ctx.workflows.of(e.workflow) }))
  })
  return () => stops.forEach((stop) => stop())
}
