/**
 * Task queue gauges, read at scrape time from engine.taskDepth() (cached, single flight, like
 * the backlog): per transport and step, the remote-step tasks waiting for a worker, delayed,
 * and held, and how long the oldest waiting one has been due. Labels are bounded: transports
 * are the engine's own; steps are cut at 200 distinct values (LabelValues). A failed read keeps
 * the last values and counts an error; the scrape still answers.
 */
import { Counter, Gauge } from 'prom-client'
import type { TaskQueueDepth } from '@cairn/core'
import { CachedReader, type Reading } from './cached_reader.ts'
import type { MetricsContext } from './context.ts'
import { LabelValues } from './label_values.ts'

export interface TaskQueueGaugeOptions {
  cacheMs: number
  timeoutMs: number
}

const MAX_STEP_LABELS = 200
const STATES = ['ready', 'delayed', 'held'] as const

export function taskQueueGauges(ctx: MetricsContext, options: TaskQueueGaugeOptions): void {
  const steps = new LabelValues(MAX_STEP_LABELS)
  const errors = new Counter({
    name: `${ctx.prefix}task_depth_read_errors_total`,
    help: 'Task queue reads (at scrape time) that failed or timed out; gauges kept their last value.',
    registers: [ctx.registry],
    collect: async () => void (await reader.current()),
  })
  const reader = new CachedReader(() => ctx.engine.taskDepth(), {
    ...options,
    what: 'task queues',
    now: () => Date.now(),
    onError: (error) => {
      errors.inc()
      ctx.engine.options.logger.warn({ err: error }, 'cairn metrics: reading task queues failed')
    },
  })
  const depthGauge = (
    name: string,
    help: string,
    labelNames: string[],
    series: (
      row: TaskQueueDepth,
      step: string,
    ) => { labels: Record<string, string>; value: number }[],
  ): void => {
    new Gauge({
      name: `${ctx.prefix}${name}`,
      help,
      labelNames,
      registers: [ctx.registry],
      async collect() {
        const reading: Reading<TaskQueueDepth[]> | null = await reader.current()
        if (reading === null) return
        this.reset()
        const sums = new Map<string, { labels: Record<string, string>; value: number }>()
        for (const row of reading.value)
          for (const { labels, value } of series(row, steps.of(row.step))) {
            const key = JSON.stringify(labels)
            const sum = sums.get(key) ?? { labels, value: 0 }
            // Steps folded into `_other` keep the largest age, and the sum of counts.
            sum.value = name.endsWith('_seconds') ? Math.max(sum.value, value) : sum.value + value
            sums.set(key, sum)
          }
        for (const { labels, value } of sums.values()) this.set(labels, value)
      },
    })
  }
  depthGauge(
    'tasks_queued',
    'Remote-step tasks on each transport, per step: ready (due, no worker holds them), delayed, held by a worker.',
    ['transport', 'step', 'state'],
    (row, step) =>
      STATES.map((state) => ({
        labels: { transport: row.transport, step, state },
        value: row[state],
      })),
  )
  depthGauge(
    'tasks_oldest_ready_age_seconds',
    'How long the oldest ready remote-step task has waited for a worker, per transport and step (0 when none).',
    ['transport', 'step'],
    (row, step) => [
      { labels: { transport: row.transport, step }, value: (row.oldestReadyAgeMs ?? 0) / 1000 },
    ],
  )
}
