/**
 * Task queue gauges, read at scrape time from engine.taskDepth() (scraped_series.ts): per
 * transport and step, the remote-step tasks waiting for a worker, delayed, and held, and how
 * long the oldest waiting one has been due; and the broker's count of redeliveries (a counter
 * kept by the transport, read at scrape time like the gauges). Labels are bounded: transports are the engine's
 * own; steps are cut at 200 distinct values (LabelValues; the folded ones keep summed counts
 * and the largest age).
 */
import type { TaskQueueDepth } from '@cairn/core'
import type { MetricsContext } from './context.ts'
import { LabelValues } from './label_values.ts'
import { scrapedListGauges } from './scraped_series.ts'

export interface TaskQueueGaugeOptions {
  cacheMs: number
  timeoutMs: number
}

const MAX_STEP_LABELS = 200
const STATES = ['ready', 'delayed', 'held'] as const

export function taskQueueGauges(ctx: MetricsContext, options: TaskQueueGaugeOptions): void {
  const steps = new LabelValues(MAX_STEP_LABELS)
  scrapedListGauges<TaskQueueDepth>(
    ctx,
    {
      ...options,
      read: () => ctx.engine.taskDepth(),
      what: 'task queues',
      errors: {
        name: 'task_depth_read_errors_total',
        help: 'Task queue reads (at scrape time) that failed or timed out; gauges kept their last value.',
      },
    },
    [
      {
        name: 'tasks_queued',
        help: 'Remote-step tasks on each transport, per step: ready (due, no worker holds them), delayed, held by a worker.',
        labelNames: ['transport', 'step', 'state'],
        series: (row) =>
          // A count the transport cannot see (null) is left out, never reported as 0.
          STATES.flatMap((state) => {
            const value = row[state]
            if (value === null) return []
            return [
              { labels: { transport: row.transport, step: steps.of(row.step), state }, value },
            ]
          }),
      },
      {
        name: 'tasks_oldest_ready_age_seconds',
        help: 'How long the oldest ready remote-step task has waited for a worker, per transport and step (0 when none).',
        labelNames: ['transport', 'step'],
        combine: 'max',
        series: (row) => [
          {
            labels: { transport: row.transport, step: steps.of(row.step) },
            value: (row.oldestReadyAgeMs ?? 0) / 1000,
          },
        ],
      },
      {
        name: 'tasks_redelivered_total',
        help: 'Deliveries of a remote-step task beyond its first (a worker went silent past its hold, or handed the task back), counted by the transport, per transport and step.',
        labelNames: ['transport', 'step'],
        kind: 'counter',
        // A transport that cannot count them (null) has no series, never a 0.
        series: (row) =>
          row.redelivered === null
            ? []
            : [
                {
                  labels: { transport: row.transport, step: steps.of(row.step) },
                  value: row.redelivered,
                },
              ],
      },
    ],
  )
}
