/**
 * Gauges whose series come from a list read at scrape time (engine.listWorkers(),
 * engine.taskDepth()): one CachedReader per list with its error counter, and gauges that map
 * each item to labelled values, combined per label set (summed, or the largest), replaced at
 * each read. A failed read keeps the last values and counts an error; the scrape still answers.
 * A series may be a counter kept elsewhere (a broker's count read at scrape time): typed
 * `counter` in the exposition, its value the one read.
 */
import { Counter, Gauge } from 'prom-client'
import { CachedReader, type Reading } from './cached_reader.ts'
import type { MetricsContext } from './context.ts'

export interface ScrapedListOptions<T> {
  cacheMs: number
  timeoutMs: number
  read: () => Promise<T[]>
  /** What is read, for messages (`workers`, `task queues`). */
  what: string
  /** The error counter: its name after the prefix, and its help. */
  errors: { name: string; help: string }
}

export interface LabelledValue {
  labels: Record<string, string>
  value: number
}

export interface ScrapedGaugeSpec<T> {
  name: string
  help: string
  labelNames: string[]
  series: (item: T) => LabelledValue[]
  /** How values of one label set combine: summed (counts, default) or the largest (ages). */
  combine?: 'sum' | 'max'
  /** `counter` for a cumulative count read from elsewhere (default `gauge`). */
  kind?: 'gauge' | 'counter'
}

export function scrapedListGauges<T>(
  ctx: MetricsContext,
  options: ScrapedListOptions<T>,
  gauges: readonly ScrapedGaugeSpec<T>[],
): void {
  const errors = new Counter({
    name: `${ctx.prefix}${options.errors.name}`,
    help: options.errors.help,
    registers: [ctx.registry],
    // Awaits the same read as the gauges, so a scrape shows the error it caused.
    collect: async () => void (await reader.current()),
  })
  const reader = new CachedReader(options.read, {
    cacheMs: options.cacheMs,
    timeoutMs: options.timeoutMs,
    what: options.what,
    now: () => Date.now(),
    onError: (error) => {
      errors.inc()
      ctx.engine.options.logger.warn(
        { err: error },
        `cairn metrics: reading ${options.what} failed`,
      )
    },
  })
  for (const spec of gauges) {
    const config = {
      name: `${ctx.prefix}${spec.name}`,
      help: spec.help,
      labelNames: spec.labelNames,
      registers: [ctx.registry],
    }
    /** Replaces the series with the newest reading (none yet: left as they are). */
    const refill = async (reset: () => void, put: (value: LabelledValue) => void) => {
      const reading: Reading<T[]> | null = await reader.current()
      if (reading === null) return
      reset()
      for (const value of combined(reading.value, spec)) put(value)
    }
    if (spec.kind === 'counter')
      new Counter({
        ...config,
        async collect() {
          await refill(
            () => this.reset(),
            ({ labels, value }) => this.inc(labels, value),
          )
        },
      })
    else
      new Gauge({
        ...config,
        async collect() {
          await refill(
            () => this.reset(),
            ({ labels, value }) => this.set(labels, value),
          )
        },
      })
  }
}

function combined<T>(items: readonly T[], spec: ScrapedGaugeSpec<T>): LabelledValue[] {
  const byLabels = new Map<string, LabelledValue>()
  for (const item of items)
    for (const { labels, value } of spec.series(item)) {
      const key = JSON.stringify(labels)
      const seen = byLabels.get(key)
      if (seen === undefined) byLabels.set(key, { labels, value })
      else seen.value = spec.combine === 'max' ? Math.max(seen.value, value) : seen.value + value
    }
  return [...byLabels.values()]
}
