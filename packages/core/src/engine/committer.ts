/**
 * Group commit: coalesces the writes of every run this engine drives into one store
 * transaction per macrotask. Callers get the per-op result only once the batch is durable,
 * which is what lets a step's result reach the workflow only after its checkpoint is safe
 * while still paying one fsync for many runs.
 *
 * One batch is in flight at a time, so writes of a run land in the order they were queued.
 * When a batch fails (store down, disk full, lock timeout), nothing in it is acknowledged:
 * the engine's own writes stay queued and are retried with capped back-off; a caller's request
 * (a start, a cancel) is rejected with E_STORE_FAILURE at once, so an HTTP handler can answer
 * instead of hanging — retrying it is safe, every op being idempotent. `close()` rejects what
 * is left.
 */
import type { Clock } from '../contracts/clock.ts'
import type { Logger } from '../contracts/logger.ts'
import type {
  OpResult,
  QueueThrottle,
  SlotGrant,
  StateStore,
  StoreOp,
} from '../contracts/state_store.ts'
import { CairnError, EngineStoppedError, StoreFailureError } from '../errors/index.ts'
import { MAX_TIMER_MS } from '../util/numbers.ts'

function asStoreFailure(error: unknown): Error {
  if (CairnError.isCairnError(error)) return error
  return new StoreFailureError(`the store failed: ${String(error)}`, { cause: error })
}

interface Pending {
  op: StoreOp
  resolve(result: OpResult): void
  reject(error: unknown): void
  /** A caller's request: fail it on a store failure rather than retry it behind their back. */
  failFast: boolean
}

export type ResultCallback = (result: OpResult) => void
export type ErrorCallback = (error: unknown) => void

export interface CommitterOptions {
  store: StateStore
  clock: Clock
  logger: Logger
  /** Most ops in one transaction. */
  maxBatch: number
  /** Queue slots a batch's ops granted to other runs (OpResult.grants), once it is durable. */
  onGrants?: (grants: readonly SlotGrant[]) => void
  /** Queues a batch's grant passes found held back by their rate (OpResult.throttled). */
  onThrottled?: (throttled: readonly QueueThrottle[]) => void
}

const RETRY_BASE_MS = 20
const RETRY_MAX_MS = 2_000

export class Committer {
  private queue: Pending[] = []
  /** The batch being written, or null. */
  private inFlight: Pending[] | null = null
  private flushing = false
  private scheduled = false
  private closed = false
  private failures = 0
  /** settle() calls waiting for the batch in flight (or the next one) to end. */
  private readonly batchEnded = new Set<() => void>()
  /** When a batch last committed (Date.now()): settle() gives up only on a stalled store. */
  private lastSuccessAt = 0
  /** When the settle() calls waiting now began (null: none is waiting for a stalled store). */
  private settlingSince: number | null = null
  private readonly options: CommitterOptions

  constructor(options: CommitterOptions) {
    this.options = options
  }

  /**
   * Queue `op`; resolves with its result once its batch is durable. With `failFast` (a caller's
   * request), a store failure rejects it instead of retrying.
   */
  enqueue(op: StoreOp, failFast = false): Promise<OpResult> {
    const { promise, resolve, reject } = Promise.withResolvers<OpResult>()
    this.submit(op, resolve, reject, failFast)
    return promise
  }

  /** `enqueue` with callbacks instead of a promise: the per-step hot path. */
  submit(op: StoreOp, resolve: ResultCallback, reject: ErrorCallback, failFast = false): void {
    if (this.closed) return reject(new EngineStoppedError('the engine is closed'))
    this.queue.push({ op, resolve, reject, failFast })
    this.schedule()
  }

  /** Nothing queued, scheduled or in flight. */
  get idle(): boolean {
    return this.queue.length === 0 && !this.flushing && !this.scheduled
  }

  /** Writes queued or in flight. */
  get backlog(): number {
    return this.queue.length
  }

  /**
   * Resolves true once everything queued so far has been committed (or rejected), false once
   * no batch has succeeded for `stallMs` while writes are left: writes a store that stays down
   * keeps refusing must not hold a close forever, but a slow store that keeps taking batches is
   * waited for. It wakes at each batch's end, never spins: while a failed batch backs off there
   * is nothing to look at.
   */
  async settle(stallMs = Infinity): Promise<boolean> {
    // From the first settle still unanswered: a close after a drain that gave up does not
    // wait a second time for a store that has taken nothing since.
    this.settlingSince ??= Date.now()
    while (this.queue.length > 0 || this.flushing) {
      const since = (this.settlingSince ??= Date.now())
      const giveUpAt = Math.max(since, this.lastSuccessAt) + stallMs
      if (Date.now() >= giveUpAt) return false
      await this.nextBatchEnd(giveUpAt)
    }
    this.settlingSince = null
    return true
  }

  /** A batch ended (or `deadline` came); after a macrotask, so its callbacks' writes are in. */
  private nextBatchEnd(deadline: number): Promise<void> {
    const { promise, resolve } = Promise.withResolvers<void>()
    const wake = (): void => {
      if (timer !== null) clearTimeout(timer)
      setImmediate(resolve)
    }
    // At most a timer's longest delay: a later wake-up only checks the time again.
    const timer =
      deadline === Infinity
        ? null
        : setTimeout(
            () => {
              this.batchEnded.delete(wake)
              resolve()
            },
            Math.min(MAX_TIMER_MS, Math.max(0, deadline - Date.now())),
          )
    this.batchEnded.add(wake)
    return promise
  }

  private announceBatchEnd(): void {
    const waiting = [...this.batchEnded]
    this.batchEnded.clear()
    for (const wake of waiting) wake()
  }

  /**
   * Call `done` once every write queued so far has been acknowledged (applied or refused), at
   * once when none is. A transactional step commits beside the batches (its own transaction)
   * and waits here before delivering its outcome, so outcomes recorded before it reach the
   * workflow first. Costs nothing on the batch path: it wraps the last write's callbacks.
   */
  afterQueued(done: () => void): void {
    const last = this.queue.at(-1) ?? this.inFlight?.at(-1)
    if (last === undefined) return done()
    const { resolve, reject } = last
    last.resolve = (result) => {
      resolve(result)
      done()
    }
    // A refused caller's request may leave earlier engine writes requeued: wait for those too
    // (after the requeue, hence the microtask).
    last.reject = (error) => {
      reject(error)
      queueMicrotask(() => this.afterQueued(done))
    }
  }

  /** Reject queued writes and refuse new ones. */
  close(): void {
    this.closed = true
    const left = this.queue
    this.queue = []
    for (const item of left)
      item.reject(new EngineStoppedError('the engine closed before this write'))
    this.announceBatchEnd()
  }

  private schedule(): void {
    if (this.scheduled || this.flushing) return
    this.scheduled = true
    setImmediate(() => void this.flush())
  }

  private readonly flush = async (): Promise<void> => {
    this.scheduled = false
    if (this.queue.length === 0 || this.closed) return
    this.flushing = true
    const batch = this.queue.splice(0, this.options.maxBatch)
    this.inFlight = batch
    try {
      const results = await this.options.store.applyBatch(
        batch.map((item) => item.op),
        this.options.clock.now(),
      )
      this.failures = 0
      this.lastSuccessAt = Date.now()
      for (let i = 0; i < batch.length; i++) (batch[i] as Pending).resolve(results[i] as OpResult)
      this.announceGrants(results)
    } catch (error) {
      this.requeueAfterFailure(batch, error)
      return
    } finally {
      this.flushing = false
      this.inFlight = null
      this.announceBatchEnd()
    }
    if (this.queue.length > 0) this.schedule()
  }

  /**
   * After the batch's callbacks and the promise continuations they start have run (a
   * setImmediate): a waiter whose enqueue was in this same batch registers its live hold in
   * such a continuation, and must be there to be handed the grant a release of the batch made.
   */
  private announceGrants(results: readonly OpResult[]): void {
    const { onGrants, onThrottled } = this.options
    let grants: SlotGrant[] | undefined
    let throttled: QueueThrottle[] | undefined
    // One pass, allocating only when a result carries queue news (most batches carry none).
    for (const r of results) {
      if (r.status !== 'applied') continue
      if (r.grants !== undefined) (grants ??= []).push(...r.grants)
      if (r.throttled !== undefined) (throttled ??= []).push(...r.throttled)
    }
    if (grants !== undefined && onGrants !== undefined) {
      const made = grants
      setImmediate(() => onGrants(made))
    }
    if (throttled !== undefined) onThrottled?.(throttled)
  }

  // Keep the writes and try again later: acknowledging nothing is the only safe answer.
  private requeueAfterFailure(batch: Pending[], error: unknown): void {
    // Closed while the batch was in flight: nobody will retry it; its writers hear so.
    if (this.closed) {
      for (const item of batch)
        item.reject(new EngineStoppedError('the engine closed before this write'))
      return
    }
    this.failures += 1
    for (const item of batch) if (item.failFast) item.reject(asStoreFailure(error))
    this.queue = batch.filter((item) => !item.failFast).concat(this.queue)
    const delay = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(this.failures, 10))
    this.options.logger.error(
      { err: error, ops: batch.length, attempt: this.failures, retryInMs: delay },
      'cairn: store write failed; retrying the engine writes',
    )
    this.scheduled = true
    // A real timer, not the engine clock: store back-off is infrastructure time, and a fake
    // test clock must not freeze it.
    setTimeout(() => {
      this.scheduled = false
      this.schedule()
    }, delay)
  }
}
