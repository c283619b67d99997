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
  const fleet = async (): Promise<Reading<WorkerInfo[]> | null> => reader.current()
  new Gauge({
    name: `${ctx.prefix}workers`,
    help: 'Live remote-step workers (announced within 30 s), per transport.',
    labelNames: ['transport'],
    registers: [ctx.registry],
    async collect() {
      const reading = await fleet()
      if (reading === null) return
      this.reset()
      for (const [transport, count] of countBy(reading.value, (w) => [w.transport]))
        this.set({ transport }, count)
    },
  })
  new Gauge({
    name: `${ctx.prefix}workers_by_capability`,
    help: 'Live remote-step workers offering each capability, per transport.',
    labelNames: ['transport', 'capability'],
    registers: [ctx.registry],
    async collect() {
      const reading = await fleet()
      if (reading === null) return
      this.reset()
      const counts = countBy(reading.value, (w) =>
        w.capabilities.map((c) => `${w.transport}\u0000${capabilities.of(c)}`),
      )
      for (const [key, count] of counts) {
        const [transport = '', capability = ''] = key.split('\u0000')
        this.set({ transport, capability }, count)
      }
    },
  })
  new Gauge({
    name: `${ctx.prefix}worker_tasks_in_flight`,
    help: 'Remote-step attempts the live workers were running at their last announcement.',
    labelNames: ['transport'],
    registers: [ctx.registry],
    async collect() {
      const reading = await fleet()
      if (reading === null) return
      this.reset()
      const sums = new Map<string, number>()
      for (const w of reading.value)
        sums.set(w.transport, (sums.get(w.transport) ?? 0) + w.inFlight)
      for (const [transport, sum] of sums) this.set({ transport }, sum)
    },
  })
}

function countBy(
  workers: readonly WorkerInfo[],
  keys: (w: WorkerInfo) => string[],
): Map<string, number> {
  const counts = new Map<string, number>()
  for (const worker of workers)
    for (const key of keys(worker)) counts.set(key, (counts.get(key) ?? 0) + 1)
  return counts
}
