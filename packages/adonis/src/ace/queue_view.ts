/** How `durable:queues` shows a named queue in its table. */
import type { QueueStats } from '@cairn/core/contracts'

export const QUEUE_TABLE_HEAD = [
  'Queue',
  'Concurrency',
  'Rate',
  'Running',
  'Leased',
  'Waiting',
  'Throttled',
  'Oldest waiting',
]

export function queueRow(queue: QueueStats, now: number): string[] {
  return [
    queue.queue,
    String(queue.concurrency),
    rateCell(queue),
    String(queue.granted),
    String(queue.leased),
    String(queue.waiting),
    String(queue.throttled),
    queue.oldestWaitingSince === null
      ? '—'
      : `${Math.max(0, Math.round((now - queue.oldestWaitingSince) / 1000))} s`,
  ]
}

/** "3 / 5 per 1 s": grants in the last period, of the limit; "—" without a rate. */
function rateCell(queue: QueueStats): string {
  if (queue.rateLimit === null) return '—'
  const { limit, periodMs } = queue.rateLimit
  return `${queue.recentGrants} / ${limit} per ${periodText(periodMs)}`
}

function periodText(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`
  if (ms % 1000 === 0) return `${ms / 1000} s`
  return `${ms} ms`
}
