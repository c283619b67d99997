/**
 * The database adapter's operations are transactions, and MariaDB's row and gap locks make
 * concurrent ones (two dedup pushes, a push beside a pop) deadlock now and then; the database
 * rolls the loser back whole. Every adapter call is retried on such a conflict, a few times with
 * a growing random pause: safe, because a rolled-back transaction changed nothing, and each
 * call is either idempotent (dedup pushes, renewals, completes) or did not happen.
 */
import type { QueueAdapter } from './adapter.ts'

const ATTEMPTS = 6

/** Deadlock or serialization failure: MariaDB/MySQL 1213, SQLSTATE 40001 / 40P01, SQLite busy. */
export function isConflict(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const { code, errno, sqlState } = error as { code?: unknown; errno?: unknown; sqlState?: unknown }
  return (
    code === 'ER_LOCK_DEADLOCK' ||
    errno === 1213 ||
    sqlState === '40001' ||
    code === '40001' ||
    code === '40P01' ||
    code === 'SQLITE_BUSY'
  )
}

export async function retryingConflicts<T>(call: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await call()
    } catch (error) {
      if (attempt >= ATTEMPTS || !isConflict(error)) throw error
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 5 * 2 ** attempt))
    }
  }
}

/** The adapter, each of its calls retried on a conflict. */
export function conflictRetrying(adapter: QueueAdapter): QueueAdapter {
  return {
    setWorkerId: (workerId) => adapter.setWorkerId(workerId),
    popFrom: (queue) => retryingConflicts(() => adapter.popFrom(queue)),
    recoverStalledJobs: (queue, threshold, max) =>
      retryingConflicts(() => adapter.recoverStalledJobs(queue, threshold, max)),
    renewJobs: (queue, ids) => retryingConflicts(() => adapter.renewJobs(queue, ids)),
    completeJob: (id, queue, remove) =>
      retryingConflicts(() => adapter.completeJob(id, queue, remove)),
    failJob: (id, queue, error, remove) =>
      retryingConflicts(() => adapter.failJob(id, queue, error, remove)),
    retryJob: (id, queue, at) => retryingConflicts(() => adapter.retryJob(id, queue, at)),
    getJob: (id, queue) => retryingConflicts(() => adapter.getJob(id, queue)),
    pushOn: (queue, job) => retryingConflicts(() => adapter.pushOn(queue, job)),
    pushLaterOn: (queue, job, delay) =>
      retryingConflicts(() => adapter.pushLaterOn(queue, job, delay)),
    sizeOf: (queue) => retryingConflicts(() => adapter.sizeOf(queue)),
    destroy: () => adapter.destroy(),
  }
}
