/**
 * One queue's slot lease on this engine (docs/flow-control.md "Slot leases"): slots the store
 * counts as this engine's (StateStore.leaseQueueSlots), handed to this engine's own step
 * attempts in memory — no store write per attempt. The holder asks for as many slots as its
 * demand (attempts holding one + attempts waiting here), renews its lease every third of its
 * length, and gives back what it no longer needs.
 *
 * Fleet-wide exactness comes from the store: the lease's slots are counted as in use by every
 * grant pass, and this holder never lets more attempts hold a slot than the lease's slots
 * while the lease is fresh (a lease not renewed in time hands out nothing more; attempts
 * already running finish, as a run's attempts do when its run lease lapses).
 *
 * Order: within this engine, the store's grant rule (priority, then the fairness key served
 * least recently, then arrival). Across engines, durable waiters come first: while the store
 * has any (read at each renewal), this holder hands out nothing, gives back each slot as it
 * frees (and grants the queue) and sends its local waiters to the durable line. A local
 * waiter that has waited `localWaitMs` goes to the durable line too, where it is visible to
 * operators and its run may suspend.
 */
import type { Clock, Logger, QueueLease, StateStore, TimerHandle } from '../contracts/index.ts'
import { ErrorCodes } from '../errors/index.ts'
import { nextWaiter, type QueueWaiter } from '../store/queue_grants.ts'

/** A slot an attempt holds from the lease: give it back exactly once when the attempt is over. */
export interface LeasedSlot {
  release(): void
}

/** What a waiter is told: a slot, or null (take the durable path: an item in the store). */
export type LeaseAnswer = (slot: LeasedSlot | null) => void

export interface LeaseHolderDeps {
  store: Required<Pick<StateStore, 'leaseQueueSlots' | 'grantQueueSlots'>>
  clock: Clock
  logger: Logger
  owner: string
  leaseMs: number
  /** How long an attempt waits here for a slot before it takes the durable path. */
  localWaitMs: number
  /** Grant the queue's durable waiters now (slots were given back while they wait). */
  grantQueue(queue: string): void
}

interface LocalWaiter extends QueueWaiter {
  answer: LeaseAnswer
  timer: TimerHandle
}

/** After demand falls below the slots held, how long they are kept before going back. */
const IDLE_RETURN_MS = 100

/** Fairness keys whose last grant the holder remembers (see #noteGrant). */
const MAX_KEYS = 10_000

export class QueueLeaseHolder {
  readonly #deps: LeaseHolderDeps
  readonly #queue: string
  #concurrency: number
  /** Slots the store counts as this engine's, as of the last answer. */
  #held = 0
  /** Attempts holding one of them now. */
  #inUse = 0
  /** Until this time (this engine's clock, from before the call was sent) the lease holds. */
  #freshUntil = 0
  /** Items waiting in the store at the last answer: while any, this holder yields. */
  #durableWaiting = 0
  readonly #line = new Set<LocalWaiter>()
  #order = 0
  #grants = 0
  readonly #lastGrant = new Map<string, number>()
  #calling = false
  #callAgain = false
  #renewal: TimerHandle | null = null
  #idleReturn: TimerHandle | null = null
  #closed = false

  constructor(deps: LeaseHolderDeps, queue: string, concurrency: number) {
    this.#deps = deps
    this.#queue = queue
    this.#concurrency = concurrency
  }

  /** A lease call is in flight (the engine is not quiet). */
  get busy(): boolean {
    return this.#calling
  }

  /** Slots held and in use (engine.queueLeases, tests). */
  get state(): { held: number; inUse: number; waiting: number; yielding: boolean } {
    return {
      held: this.#held,
      inUse: this.#inUse,
      waiting: this.#line.size,
      yielding: this.#durableWaiting > 0,
    }
  }

  /**
   * A slot for one attempt (`priority`, `fairnessKey`: its place, by the store's rule), now or
   * when one frees; null when it must take the durable path (waiters in the store, the lease
   * not renewed in time, the wait here too long, or this holder closed).
   */
  acquire(concurrency: number, priority: number, fairnessKey: string, answer: LeaseAnswer): void {
    this.#concurrency = concurrency
    if (this.#closed) return answer(null)
    if (this.#durableWaiting > 0) {
      // Look again at the next renewal: the durable line may have drained by then.
      this.#scheduleRenewal()
      return answer(null)
    }
    if (this.#line.size === 0 && this.#inUse < this.#usable() && this.#fresh()) {
      return answer(this.#take(fairnessKey))
    }
    const waiter: LocalWaiter = {
      priority,
      fairnessKey,
      order: ++this.#order,
      answer,
      timer: this.#deps.clock.setTimer(this.#deps.localWaitMs, () => {
        if (!this.#line.delete(waiter)) return
        // It becomes a durable waiter: look after it from the next renewal on (below).
        this.#durableWaiting = Math.max(this.#durableWaiting, 1)
        this.#scheduleRenewal()
        answer(null)
      }),
    }
    this.#line.add(waiter)
    this.#call()
  }

  /**
   * Give the slots back (the engine closes, after its drain) and grant the queue's durable
   * waiters; local waiters take the durable path. Slots of attempts still running (a drain
   * that timed out) stay counted until the lease expires.
   */
  async close(): Promise<void> {
    this.#closed = true
    this.#renewal?.cancel()
    this.#idleReturn?.cancel()
    this.#flushLine()
    if (this.#held === 0) return
    const now = this.#deps.clock.now()
    const inUse = Math.min(this.#inUse, this.#held)
    this.#held = 0
    try {
      const lease = await this.#deps.store.leaseQueueSlots(this.#request(0, inUse), now)
      if (lease.waiting > 0) await this.#deps.store.grantQueueSlots([this.#queue], now)
    } catch (error) {
      this.#deps.logger.warn(
        { err: error, queue: this.#queue },
        'cairn: could not give back leased queue slots; they return when the lease expires',
      )
    }
  }

  #fresh(): boolean {
    return this.#deps.clock.now() < this.#freshUntil
  }

  #take(fairnessKey: string): LeasedSlot {
    this.#inUse += 1
    this.#noteGrant(fairnessKey)
    let released = false
    return {
      release: () => {
        if (released) return
        released = true
        this.#inUse -= 1
        this.#handOut()
      },
    }
  }

  /**
   * The key's last grant, newest last in the map. Bounded: past MAX_KEYS keys the half served
   * longest ago is forgotten — they rank as never served, which is where they ranked anyway.
   */
  #noteGrant(fairnessKey: string): void {
    this.#lastGrant.delete(fairnessKey)
    this.#lastGrant.set(fairnessKey, ++this.#grants)
    if (this.#lastGrant.size <= MAX_KEYS) return
    let drop = this.#lastGrant.size - MAX_KEYS / 2
    for (const key of this.#lastGrant.keys()) {
      if (drop-- <= 0) break
      this.#lastGrant.delete(key)
    }
  }

  /** Hand free slots to local waiters by the grant rule, or start giving them back. */
  #handOut(): void {
    if (this.#durableWaiting > 0 || this.#closed) {
      this.#call()
      return
    }
    while (this.#inUse < this.#usable() && this.#line.size > 0 && this.#fresh()) {
      const next = nextWaiter(this.#line, (key) => this.#lastGrant.get(key) ?? 0)
      if (next === undefined) break
      this.#line.delete(next)
      next.timer.cancel()
      next.answer(this.#take(next.fairnessKey))
    }
    if (this.#line.size > 0 && this.#inUse < this.#usable()) this.#call()
    else if (this.#demand() < this.#held) this.#returnIdleSoon()
  }

  /** Slots attempts may take: the lease's, within this engine's own concurrency. */
  #usable(): number {
    return Math.min(this.#held, this.#concurrency)
  }

  #demand(): number {
    return Math.min(this.#concurrency, this.#inUse + this.#line.size)
  }

  #returnIdleSoon(): void {
    if (this.#idleReturn !== null || this.#closed) return
    this.#idleReturn = this.#deps.clock.setTimer(IDLE_RETURN_MS, () => {
      this.#idleReturn = null
      if (this.#demand() < this.#held) this.#call()
    })
  }

  /** One lease call at a time; a change meanwhile makes one more after it. */
  #call(): void {
    if (this.#closed) return
    if (this.#calling) {
      this.#callAgain = true
      return
    }
    this.#calling = true
    // While durable waiters wait, the line here is empty (its waiters went to theirs): the
    // demand is the slots in use, and what is freed goes back.
    const want = this.#demand()
    // Until the answer, hand out no more than the store will still count after it: the call
    // may shrink the lease to `want`, and keeps the `inUse` it is told (leaseQueueSlots).
    this.#held = Math.min(this.#held, Math.max(want, this.#inUse))
    const sentAt = this.#deps.clock.now()
    this.#deps.store
      .leaseQueueSlots(this.#request(want, this.#held), sentAt)
      .then(
        (lease) => this.#answered(lease, sentAt),
        (error: unknown) => this.#failed(error),
      )
      .finally(() => {
        this.#calling = false
        this.#scheduleRenewal()
        if (this.#callAgain) {
          this.#callAgain = false
          this.#call()
        }
      })
  }

  /**
   * A lease call failed: waiting attempts take the durable line, and so does every attempt
   * until the next renewal tries again (a store that refuses the request: for good).
   */
  #failed(error: unknown): void {
    const refused = (error as { code?: unknown } | null)?.code === ErrorCodes.INVALID_ARGUMENT
    this.#deps.logger[refused ? 'error' : 'warn'](
      { err: error, queue: this.#queue },
      refused
        ? 'cairn: the store refused a slot lease; this queue takes the durable line on this engine'
        : 'cairn: could not lease queue slots; attempts take the durable line until the next try',
    )
    if (refused) this.#closed = true
    else this.#durableWaiting = Math.max(this.#durableWaiting, 1)
    this.#flushLine()
  }

  #answered(lease: QueueLease, sentAt: number): void {
    if (this.#closed) return
    this.#held = lease.held
    this.#freshUntil = sentAt + Math.floor((this.#deps.leaseMs * 2) / 3)
    this.#durableWaiting = lease.waiting
    if (lease.waiting > 0) {
      // Durable waiters first: local ones join them; freed slots go back to the store, and
      // the queue is granted at every renewal while they wait — slots also free without a
      // write to the queue when another holder's lease expires (it died).
      this.#flushLine()
      if (this.#held > this.#inUse) this.#callAgain = true
      this.#deps.grantQueue(this.#queue)
      return
    }
    // Fewer than wanted (other holders, granted items): those waiting here wait on, for a
    // slot freed here or the next renewal.
    this.#handOut()
  }

  /**
   * Renew a third of the way through the lease while anything is held, used or waited for —
   * or while the store had durable waiters (to learn when they are gone).
   */
  #scheduleRenewal(): void {
    if (this.#closed || this.#renewal !== null) return
    const idle = this.#held === 0 && this.#inUse === 0 && this.#line.size === 0
    if (idle && this.#durableWaiting === 0) return
    const delay = Math.max(1, Math.floor(this.#deps.leaseMs / 3))
    this.#renewal = this.#deps.clock.setTimer(delay, () => {
      this.#renewal = null
      this.#call()
    })
  }

  #flushLine(): void {
    const waiters = [...this.#line]
    this.#line.clear()
    for (const waiter of waiters) {
      waiter.timer.cancel()
      waiter.answer(null)
    }
  }

  #request(want: number, inUse: number) {
    return {
      queue: this.#queue,
      owner: this.#deps.owner,
      want,
      inUse,
      concurrency: this.#concurrency,
      leaseMs: this.#deps.leaseMs,
    }
  }
}
