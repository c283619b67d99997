/**
 * Remote-step tasks published by this engine (`task:dispatched`), per transport and step: first
 * publishes, and republishes by a check that found no result yet — a rising republish rate is
 * tasks lost by a broker, or workers too slow or missing. Outcomes are the step metrics'.
 */
import { Counter } from 'prom-client'
import type { MetricsContext, Unsubscribe } from './context.ts'

export function taskCounters(ctx: MetricsContext): Unsubscribe {
  const dispatched = new Counter({
    name: `${ctx.prefix}tasks_dispatched_total`,
    help: 'Remote-step tasks published for a new attempt, per transport and step.',
    labelNames: ['transport', 'step'],
    registers: [ctx.registry],
  })
  const republished = new Counter({
    name: `${ctx.prefix}tasks_republished_total`,
    help: 'Remote-step tasks published again by a check that found no result yet.',
    labelNames: ['transport', 'step'],
    registers: [ctx.registry],
  })
  return ctx.engine.on('task:dispatched', (e) => {
    const labels = { transport: e.transport, step: ctx.steps.of(e.name) }
    if (e.republished) republished.inc(labels)
    else dispatched.inc(labels)
  })
}
