/** How `durable:queues` shows a named queue in its table. */
import type { QueueStats } from '@cairn/core/contracts'

export const QUEUE_TABLE_HEAD = ['Queue', 'Concurrency', 'Running', 'Waiting', 'Oldest waiting']

export function queueRow(queue: QueueStats, now: number): string[] {
  return [
    queue.queue,
    String(queue.concurrency),
    String(queue.granted),
    String(queue.waiting),
    queue.oldestWaitingSince === null
      ? '—'
      : `${Math.max(0, Math.round((now - queue.oldestWaitingSince) / 1000))} s`,
  ]
}
