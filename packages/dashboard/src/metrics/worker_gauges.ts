/**
 * Worker gauges, read at scrape time from engine.listWorkers() (cached, single flight, like the
 * backlog): live workers per transport, per transport and capability, and the tasks they run.
 * Labels are bounded: transports are the engine's own; capabilities are cut at 200 distinct
 * values (LabelValues), so a fleet announcing thousands of names cannot blow up the registry.
 * A failed read keeps the last values and counts an error; the scrape still answers.
 */
import { Counter, Gauge } from 'prom-client'
import type { WorkerInfo } from '@cairn/core'
import { CachedReader, type Reading } from './cached_reader.ts'
import type { MetricsContext } from './context.ts'
import { LabelValues } from './label_values.ts'

export interface WorkerGaugeOptions {
  cacheMs: number
  timeoutMs: number
}

/** Distinct capability label values kept; later ones are counted as `_other`. */
const MAX_CAPABILITY_LABELS = 200

export function workerGauges(ctx: MetricsContext, options: WorkerGaugeOptions): void {
  const capabilities = new LabelValues(MAX_CAPABILITY_LABELS)
  const errors = new Counter({
    name: `${ctx.prefix}workers_read_errors_total`,
    help: 'Fleet reads (at scrape time) that failed or timed out; gauges kept their last value.',
    registers: [ctx.registry],
    collect: async () => void (await reader.current()),
  })
  const reader = new CachedReader(() => ctx.engine.listWorkers(), {
    ...options,
    what: 'workers',
    now: () => Date.now(),
    onError: (error) => {
      errors.inc()
      ctx.engine.options.logger.warn({ err: error }, 'cairn metrics: listing workers failed')
    },
  })
  /** A gauge whose series are the fleet's, summed by label set, replaced at each read. */
  const fleetGauge = (
    name: string,
    help: string,
    labelNames: string[],
    series: (worker: WorkerInfo) => { labels: Record<string, string>; value: number }[],
  ): void => {
    new Gauge({
      name: `${ctx.prefix}${name}`,
      help,
      labelNames,
      registers: [ctx.registry],
      async collect() {
        const reading: Reading<WorkerInfo[]> | null = await reader.current()
        if (reading === null) return
        this.reset()
        const sums = new Map<string, { labels: Record<string, string>; value: number }>()
        for (const worker of reading.value)
          for (const { labels, value } of series(worker)) {
            const key = JSON.stringify(labels)
            const sum = sums.get(key) ?? { labels, value: 0 }
            sum.value += value
            sums.set(key, sum)
          }
        for (const { labels, value } of sums.values()) this.set(labels, value)
      },
    })
  }
  fleetGauge(
    'workers',
    'Live remote-step workers (announced within 30 s), per transport.',
    ['transport'],
    (w) => [{ labels: { transport: w.transport }, value: 1 }],
  )
  fleetGauge(
    'workers_by_capability',
    'Live remote-step workers offering each capability, per transport.',
    ['transport', 'capability'],
    (w) =>
      w.capabilities.map((c) => ({
        labels: { transport: w.transport, capability: capabilities.of(c) },
        value: 1,
      })),
  )
  fleetGauge(
    'worker_tasks_in_flight',
    'Remote-step attempts the live workers were running at their last announcement.',
    ['transport'],
    (w) => [{ labels: { transport: w.transport }, value: w.inFlight }],
  )
}
