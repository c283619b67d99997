/**
 * Retention (docs/retention.md), fed by the engine's `retention:swept` events — the process
 * whose engine swept: runs deleted, by policy (an expired run with its subtree counts every
 * run it took), and expired runs kept because an open run still needs them (counted at every
 * sweep that passes them over). engine.deleteRun and engine.purgeRuns emit no event: what they
 * delete is not counted here. Sum over your processes for the system.
 */
import { Counter } from 'prom-client'
import type { MetricsContext, Unsubscribe } from './context.ts'

export function retentionMetrics(ctx: MetricsContext): Unsubscribe {
  const deleted = new Counter({
    name: `${ctx.prefix}runs_deleted_total`,
    help: 'Runs deleted by a retention policy (with their subtrees), in this process.',
    labelNames: ['policy'],
    registers: [ctx.registry],
  })
  const refused = new Counter({
    name: `${ctx.prefix}retention_refused_total`,
    help: 'Expired runs a retention sweep kept because an open run still needs them, at each sweep, in this process.',
    labelNames: ['policy'],
    registers: [ctx.registry],
  })
  const stop = ctx.engine.on('retention:swept', (e) => {
    const labels = { policy: ctx.policies.of(e.policy) }
    if (e.runs > 0) deleted.inc(labels, e.runs)
    if (e.refused > 0) refused.inc(labels, e.refused)
  })
  return stop
}
