/**
 * Backlog gauges, read at scrape time through a CachedReader (cached, single flight): runs
 * pending, waiting, blocked and queued, timers due and not yet picked up, and how long the oldest pending run
 * has been claimable. A failed read leaves every gauge at its last value and increments the
 * error counter; the scrape still answers.
 */
import { Counter, Gauge } from 'prom-client'
import type { RunBacklog } from '@cairn/core/contracts'
import { CachedReader, type Reading } from './cached_reader.ts'

type BacklogReading = Reading<RunBacklog>
import type { MetricsContext } from './context.ts'

export interface BacklogGaugeOptions {
  cacheMs: number
  timeoutMs: number
}

const GAUGES: ReadonlyArray<[string, string, (r: BacklogReading) => number]> = [
  ['runs_pending', 'Runs pending: created or requeued, not yet claimed.', (r) => r.value.pending],
  ['runs_waiting', 'Runs waiting on a timer, signal, child or event.', (r) => r.value.waiting],
  [
    'runs_blocked',
    'Runs blocked: a remote step no live worker can serve (not counted as waiting).',
    (r) => r.value.blocked,
  ],
  [
    'runs_queued',
    'Runs queued: waiting for a slot of their singleton key (not claimable until promoted).',
    (r) => r.value.queued,
  ],
  [
    'timers_due',
    'Waiting runs whose wake time has passed, not yet claimed.',
    (r) => r.value.dueTimers,
  ],
  [
    'oldest_pending_age_seconds',
    'How long the oldest pending run has been claimable (0 when none).',
    (r) => pendingAgeSeconds(r.value, r.readAt),
  ],
]

export function backlogGauges(ctx: MetricsContext, options: BacklogGaugeOptions): void {
  const errors = new Counter({
    name: `${ctx.prefix}backlog_read_errors_total`,
    help: 'Backlog reads (at scrape time) that failed or timed out; gauges kept their last value.',
    registers: [ctx.registry],
    // Awaits the same read as the gauges, so a scrape shows the error it caused.
    collect: async () => void (await reader.current()),
  })
  const reader = new CachedReader(() => ctx.engine.backlog(), {
    ...options,
    what: 'backlog',
    now: () => ctx.engine.options.clock.now(),
    onError: (error) => {
      errors.inc()
      ctx.engine.options.logger.warn({ err: error }, 'cairn metrics: reading the backlog failed')
    },
  })
  for (const [name, help, value] of GAUGES) {
    new Gauge({
      name: `${ctx.prefix}${name}`,
      help,
      registers: [ctx.registry],
      async collect() {
        const reading = await reader.current()
        if (reading !== null) this.set(value(reading))
      },
    })
  }
}

function pendingAgeSeconds(backlog: RunBacklog, now: number): number {
  if (backlog.oldestPendingAt === null) return 0
  return Math.max(0, now - backlog.oldestPendingAt) / 1000
}
