/**
 * Worker gauges, read at scrape time from engine.listWorkers() (scraped_series.ts: cached,
 * single flight, like the backlog): live workers per transport, per transport and capability,
 * and the tasks they run. Labels are bounded: transports are the engine's own; capabilities are
 * cut at 200 distinct values (LabelValues), so a fleet announcing thousands of names cannot
 * blow up the registry.
 */
import type { WorkerInfo } from '@cairn/core'
import type { MetricsContext } from './context.ts'
import { LabelValues } from './label_values.ts'
import { scrapedListGauges } from './scraped_series.ts'

export interface WorkerGaugeOptions {
  cacheMs: number
  timeoutMs: number
}

/** Distinct capability label values kept; later ones are counted as `_other`. */
const MAX_CAPABILITY_LABELS = 200

export function workerGauges(ctx: MetricsContext, options: WorkerGaugeOptions): void {
  const capabilities = new LabelValues(MAX_CAPABILITY_LABELS)
  scrapedListGauges<WorkerInfo>(
    ctx,
    {
      ...options,
      read: () => ctx.engine.listWorkers(),
      what: 'workers',
      errors: {
        name: 'workers_read_errors_total',
        help: 'Fleet reads (at scrape time) that failed or timed out; gauges kept their last value.',
      },
    },
    [
      {
        name: 'workers',
        help: 'Live remote-step workers (announced within 30 s), per transport.',
        labelNames: ['transport'],
        series: (w) => [{ labels: { transport: w.transport }, value: 1 }],
      },
      {
        name: 'workers_by_capability',
        help: 'Live remote-step workers offering each capability, per transport.',
        labelNames: ['transport', 'capability'],
        series: (w) =>
          w.capabilities.map((c) => ({
            labels: { transport: w.transport, capability: capabilities.of(c) },
            value: 1,
          })),
      },
      {
        name: 'worker_tasks_in_flight',
        help: 'Remote-step attempts the live workers were running at their last announcement.',
        labelNames: ['transport'],
        series: (w) => [{ labels: { transport: w.transport }, value: w.inFlight }],
      },
    ],
  )
}
