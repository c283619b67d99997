/**
 * Runs this engine recovered from a lease (`run:recovered`): all of them, and the takeovers
 * among them (another instance's lease had expired: that engine died or stalled). A rising
 * takeover count is the signal worth an alert; reclaims follow every restart under a stable
 * instance id.
 */
import { Counter } from 'prom-client'
import type { MetricsContext, Unsubscribe } from './context.ts'

export function recoveryCounters(ctx: MetricsContext): Unsubscribe {
  const recovered = new Counter({
    name: `${ctx.prefix}runs_recovered_total`,
    help: 'Runs claimed while still leased: reclaimed from this instance id, or taken over.',
    labelNames: ['workflow'],
    registers: [ctx.registry],
  })
  const takeovers = new Counter({
    name: `${ctx.prefix}lease_takeovers_total`,
    help: "Runs taken over from another instance's expired lease.",
    labelNames: ['workflow'],
    registers: [ctx.registry],
  })
  return ctx.engine.on('run:recovered', (e) => {
    const labels = { workflow: ctx.workflows.of(e.workflow) }
    recovered.inc(labels)
    if (e.kind === 'takeover') takeovers.inc(labels)
  })
}
