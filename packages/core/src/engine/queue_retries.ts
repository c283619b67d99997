/**
 * Rate-limited queues whose grants wait for time, not for a slot (QueueThrottle): a write
 * whose grant pass the queue's rate stopped says when the next grant is possible, and nothing
 * in the store grants then by itself. This engine keeps one timer per such queue, at the
 * earliest time it was told, and asks the store to grant then (grantQueueSlots): the grants go
 * to turns holding their runs here (LiveGrants) and wake the driver; a rate that stops the
 * pass again sets the next timer. If this engine dies first, the park sweep of any engine
 * with the queue registered grants it (and learns the time itself).
 */
import type { QueueGrantReport, QueueThrottle } from '../contracts/state_store.ts'
import type { TimerHandle } from '../contracts/clock.ts'
import type { LiveGrants } from '../execution/live_grants.ts'
import type { ResolvedEngineOptions } from './options.ts'

/** After a failed grant call, try again this much later (the store is down or busy). */
const RETRY_AFTER_FAILURE_MS = 1_000

interface Pending {
  at: number
  timer: TimerHandle
}

export interface QueueRetriesDeps {
  options: Pick<ResolvedEngineOptions, 'store' | 'clock' | 'logger'>
  liveGrants: LiveGrants
  /** Runs became claimable at `at` (a grant woke them): the driver looks. */
  wake(at: number): void
}

export class QueueRetries {
  readonly #deps: QueueRetriesDeps
  readonly #pending = new Map<string, Pending>()
  #closed = false
  /** Grant calls in flight (harnesses wait for none before moving a fake clock). */
  #busy = 0

  constructor(deps: QueueRetriesDeps) {
    this.#deps = deps
  }

  get busy(): boolean {
    return this.#busy > 0
  }

  /** Timers set, by queue (for operators and tests). */
  get pending(): ReadonlyMap<string, number> {
    return new Map([...this.#pending].map(([queue, p]) => [queue, p.at]))
  }

  /** Grant `queue` at each `retryAt`, keeping the earliest time per queue. */
  note(throttled: readonly QueueThrottle[]): void {
    for (const { queue, retryAt } of throttled) this.#schedule(queue, retryAt)
  }

  /** What a grant call answered: its grants handed over, its throttles noted. */
  took(report: QueueGrantReport): void {
    const { liveGrants, wake, options } = this.#deps
    if (report.grants.length > 0) {
      liveGrants.deliver(report.grants)
      wake(options.clock.now())
    }
    this.note(report.throttled)
  }

  /**
   * Grant `queues` now: slots a write freed without a grant pass of its own (a run that parked
   * holding them). A failed call is retried like a throttled queue's.
   */
  grantNow(queues: readonly string[]): void {
    if (this.#closed || queues.length === 0) return
    const { store, clock, logger } = this.#deps.options
    this.#busy += 1
    store
      .grantQueueSlots(queues, clock.now())
      .then(
        (report) => this.took(report),
        (error: unknown) => {
          logger.warn({ err: error, queues }, 'cairn: could not grant freed queue slots; retrying')
          for (const queue of queues) this.#schedule(queue, clock.now() + RETRY_AFTER_FAILURE_MS)
        },
      )
      .finally(() => (this.#busy -= 1))
  }

  /** No timer fires after this. */
  close(): void {
    this.#closed = true
    for (const p of this.#pending.values()) p.timer.cancel()
    this.#pending.clear()
  }

  #schedule(queue: string, at: number): void {
    if (this.#closed) return
    const current = this.#pending.get(queue)
    if (current !== undefined && current.at <= at) return
    current?.timer.cancel()
    const { clock } = this.#deps.options
    const timer = clock.setTimer(Math.max(0, at - clock.now()), () => void this.#fire(queue))
    this.#pending.set(queue, { at, timer })
  }

  async #fire(queue: string): Promise<void> {
    this.#pending.delete(queue)
    if (this.#closed) return
    const { store, clock, logger } = this.#deps.options
    this.#busy += 1
    try {
      this.took(await store.grantQueueSlots([queue], clock.now()))
    } catch (error) {
      logger.warn({ err: error, queue }, 'cairn: could not grant a rate-limited queue; retrying')
      this.#schedule(queue, clock.now() + RETRY_AFTER_FAILURE_MS)
    } finally {
      this.#busy -= 1
    }
  }
}
