/** How `durable:workers` shows a worker in its table. */
import type { WorkerInfo } from '@cairn/core'

export const WORKER_TABLE_HEAD = [
  'Worker',
  'Transport',
  'Host',
  'Capabilities',
  'Steps',
  'Concurrency',
  'In flight',
  'Last seen',
  'Protocol',
]

export function workerRow(worker: WorkerInfo, now: number): string[] {
  return [
    worker.workerId,
    worker.transport,
    worker.pid === null ? worker.host : `${worker.host}:${worker.pid}`,
    worker.capabilities.join(', ') || '—',
    worker.steps.join(', '),
    `${worker.concurrency.limit}${worker.concurrency.mode === 'fixed' ? '' : ` (${worker.concurrency.mode})`}`,
    String(worker.inFlight),
    `${Math.max(0, Math.round((now - worker.lastSeenAt) / 1000))} s ago`,
    worker.protocol === null
      ? `incompatible (${worker.protocols.join(', ')})`
      : `v${worker.protocol}`,
  ]
}
