/**
 * Named queue gauges, read at scrape time from engine.queueStats() (scraped_series.ts): per
 * queue this engine registered, the slots in use and the steps waiting, the steps its rate
 * holds back, its rate's limit and recent grants, its concurrency, and how long the oldest
 * waiter has waited. Labels are bounded: queues are the
 * engine's own registrations.
 */
import type { QueueStats } from '@cairn/core/contracts'
import type { MetricsContext } from './context.ts'
import { scrapedListGauges } from './scraped_series.ts'

export interface QueueGaugeOptions {
  cacheMs: number
  timeoutMs: number
}

export function queueGauges(ctx: MetricsContext, options: QueueGaugeOptions): void {
  scrapedListGauges<QueueStats>(
    ctx,
    {
      ...options,
      read: () => ctx.engine.queueStats(),
      what: 'named queues',
      errors: {
        name: 'queue_stats_read_errors_total',
        help: 'Named queue reads (at scrape time) that failed or timed out; gauges kept their last value.',
      },
    },
    [
      {
        name: 'queue_slots',
        help: 'Slots of each named queue: running (granted to a step by the store), leased (held by an engine with slot leases, for its own steps) or waiting (steps waiting for one).',
        labelNames: ['queue', 'state'],
        series: (row) => [
          { labels: { queue: row.queue, state: 'running' }, value: row.granted },
          { labels: { queue: row.queue, state: 'leased' }, value: row.leased },
          { labels: { queue: row.queue, state: 'waiting' }, value: row.waiting },
        ],
      },
      {
        name: 'queue_throttled',
        help: 'Steps of each named queue waiting beside a free slot because of its rate limit (0 without one).',
        labelNames: ['queue'],
        series: (row) => [{ labels: { queue: row.queue }, value: row.throttled }],
      },
      {
        name: 'queue_rate_recent_grants',
        help: 'Slots each rate-limited named queue granted in the last period of its rate (compare with queue_rate_limit).',
        labelNames: ['queue'],
        series: (row) =>
          row.rateLimit === null ? [] : [{ labels: { queue: row.queue }, value: row.recentGrants }],
      },
      {
        name: 'queue_rate_limit',
        help: "Each rate-limited named queue's limit: grants allowed per period (the newest engine's setting).",
        labelNames: ['queue', 'period_ms'],
        series: (row) =>
          row.rateLimit === null
            ? []
            : [
                {
                  labels: { queue: row.queue, period_ms: String(row.rateLimit.periodMs) },
                  value: row.rateLimit.limit,
                },
              ],
      },
      {
        name: 'queue_concurrency',
        help: "Each named queue's concurrency (the newest engine's setting).",
        labelNames: ['queue'],
        series: (row) => [{ labels: { queue: row.queue }, value: row.concurrency }],
      },
      {
        name: 'queue_oldest_waiting_age_seconds',
        help: 'How long the oldest step waiting for a slot of each named queue has waited (0 when none).',
        labelNames: ['queue'],
        series: (row) => [
          {
            labels: { queue: row.queue },
            value:
              row.oldestWaitingSince === null
                ? 0
                : Math.max(0, ctx.engine.options.clock.now() - row.oldestWaitingSince) / 1000,
          },
        ],
      },
    ],
  )
}
