/**
 * The part of `@boringnode/queue`'s `Adapter` (what `@adonisjs/queue`'s `redis` and `database`
 * drivers make) this transport uses, typed here so the package loads no queue code of its own:
 * the app hands it an adapter factory from its queue config. A test checks that the real
 * adapters satisfy it.
 *
 * What the adapter contract gives, and what the transport builds on it (docs/queue-transport.md):
 * - `popFrom` moves one pending job to active for this adapter's worker id, atomically;
 * - `renewJobs` refreshes `acquiredAt` only of jobs still active *and owned by this worker id*,
 *   so a renewal that counts 1 proves the hold — the transport renews before every complete and
 *   hand-back, which the adapter itself does not fence;
 * - `pushOn`/`pushLaterOn` with `dedup: { id }` add a job once per id while it exists, and with
 *   `replace: true` swap the payload of a pending or delayed job but never of an active one — the
 *   atomic test withdrawal stands on;
 * - `recoverStalledJobs` puts back jobs whose `acquiredAt` is older than a threshold.
 */

/** A job as the adapter stores it (the fields read here). */
export interface QueueJobData {
  id: string
  name: string
  payload: unknown
  attempts: number
  stalledCount?: number
  dedup?: { id: string; ttl?: number; extend?: boolean; replace?: boolean }
}

export interface QueueJobRecord {
  status: 'pending' | 'active' | 'delayed' | 'completed' | 'failed'
  data: QueueJobData
}

export type DedupOutcome = 'added' | 'skipped' | 'replaced' | 'extended'

export interface QueueAdapter {
  setWorkerId(workerId: string): void
  popFrom(queue: string): Promise<(QueueJobData & { acquiredAt: number }) | null>
  recoverStalledJobs(
    queue: string,
    stalledThreshold: number,
    maxStalledCount: number,
  ): Promise<number>
  renewJobs(queue: string, jobIds: string[]): Promise<number>
  completeJob(jobId: string, queue: string, removeOnComplete?: boolean): Promise<void>
  failJob(jobId: string, queue: string, error?: Error, removeOnFail?: boolean): Promise<void>
  retryJob(jobId: string, queue: string, retryAt?: Date): Promise<void>
  getJob(jobId: string, queue: string): Promise<QueueJobRecord | null>
  pushOn(
    queue: string,
    jobData: QueueJobData,
  ): Promise<{ outcome: DedupOutcome; jobId: string } | void>
  pushLaterOn(
    queue: string,
    jobData: QueueJobData,
    delay: number,
  ): Promise<{ outcome: DedupOutcome; jobId: string } | void>
  sizeOf(queue: string): Promise<number>
  destroy(): Promise<void>
}

/** What the app's queue config holds per adapter: a function making a new adapter instance. */
export type QueueAdapterFactory = () => QueueAdapter
