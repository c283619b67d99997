/**
 * A step on a named queue (`ctx.step(ref, input, { queue, priority, fairnessKey })`): before
 * each attempt, the position asks the queue for a slot by saving its `waiting` checkpoint with
 * an enqueue (SaveCheckpointOp.enqueue). The store grants at once when a slot is free (the
 * save's result says so) or later, in the write that frees one, as the inbox message
 * queueSlotMessage(seq) — a durable wait like a signal's: the run suspends, and the grant wakes
 * it. The attempt's outcome gives the slot back in the save that records it (`release`).
 *
 * A slot belongs to the position, not to an engine: after a crash the run's next turn replays
 * to the position, finds its grant in the inbox and runs the attempt again (at least once, as
 * every attempt), so a killed holder's slot returns when its run records the outcome.
 */
import type { QueueRequest } from '../contracts/state_store.ts'
import { ErrorCodes } from '../errors/index.ts'
import { checkPriority, DEFAULT_PRIORITY } from '../store/run_priority.ts'
import {
  checkQueueName,
  checkFairnessKey,
  queueGrantId,
  queueSlotMessage,
} from '../store/queue_check.ts'
import { derivedFairnessKey } from '../engine/queue_fairness.ts'
import type { StepRecordInput, TurnRuntime } from './runtime.ts'
import type { RegisteredQueue } from '../engine/queue_registry.ts'
import type { LeasedSlot } from '../engine/slot_leases.ts'
import type { StepOptions } from './types.ts'

/** A step's queue as resolved for one call: the queue's spec and the call's place in it. */
export interface QueuePlacement {
  queue: string
  priority: number
  fairnessKey: string
}

/** A step's queue options as checked: `fairnessKey` null when neither call nor step gave one. */
export interface QueueChoice extends Omit<QueuePlacement, 'fairnessKey'> {
  fairnessKey: string | null
}

/**
 * The queue options of a step (registered or per call), checked: a well-formed queue name, a
 * priority and a fairness key only with a queue, and no transport with a queue. Throws an
 * Error whose message the caller wraps with the step's name.
 */
export function checkStepQueueing(options: StepOptions): QueueChoice | null {
  const { queue, priority, fairnessKey } = options
  if (queue === undefined) {
    if (priority !== undefined || fairnessKey !== undefined)
      throw new Error('priority and fairnessKey order a step within its queue: give { queue }')
    return null
  }
  checkQueueName(queue, 'queue')
  return {
    queue,
    priority: priority === undefined ? DEFAULT_PRIORITY : checkPriority(priority, 'queue'),
    fairnessKey: fairnessKey === undefined ? null : checkFairnessKey(fairnessKey, 'queue'),
  }
}

/**
 * A step's queue as its plan carries it: the queue's name, and its place in the line worked
 * out only when an attempt asks for a slot (`place`) — never on a replay of a recorded
 * outcome, so a queue's `fairness` added by a later deploy cannot change what a finished step
 * replays to.
 */
export interface QueueLane {
  queue: string
  place(): QueuePlacement
}

/**
 * The lane of a call (`where`: what holds the place, for errors — `step "charge"`): its place
 * is the fairness key given, else the one the queue derives from the step's (or run's) input (`registerQueue(name, { fairness })`), else '' (one key). A queue this
 * engine does not know derives nothing: the step parks before its attempt, and the replay
 * after the queue is registered places it again. `place` throws E_INVALID_ARGUMENT when the
 * derivation fails.
 */
export function queueLane(
  rt: Pick<TurnRuntime, 'findQueue'>,
  choice: QueueChoice,
  input: unknown,
  where: string,
): QueueLane {
  return {
    queue: choice.queue,
    place: () => {
      if (choice.fairnessKey !== null) return { ...choice, fairnessKey: choice.fairnessKey }
      const rule = rt.findQueue(choice.queue)?.fairness ?? null
      const fairnessKey = rule === null ? '' : derivedFairnessKey(choice.queue, rule, input, where)
      return { ...choice, fairnessKey }
    },
  }
}

/** What the asker of a slot is told (QueueSlot.acquire). */
export interface SlotHandlers {
  /**
   * The attempt holds a slot: run it. `resumed`: the grant came after a wait, in a later
   * callback of this turn (the asker left the turn's work count when told `waiting`).
   */
  granted(resumed: boolean): void
  /** No slot yet: the position waits durably for its grant (the run may suspend meanwhile). */
  waiting(): void
  /** The turn was lost, the position holds an outcome, or the run was parked: stop. */
  lost(): void
  /**
   * The attempt cannot be placed in its queue (its fairness key could not be derived from the
   * input): the step fails for good with `error` (E_INVALID_ARGUMENT), recorded like any
   * outcome so a replay answers the same.
   */
  refused(error: unknown): void
}

/** Asks for a slot before each attempt of one position. */
export class QueueSlot {
  readonly #rt: TurnRuntime
  readonly #lane: QueueLane
  readonly #seq: number
  readonly #message: string
  readonly #holder: string
  /**
   * Attempts may take their slot from this engine's slot lease: the position has no item in
   * the store (it had no record when this turn reached it, and no attempt of it took the
   * durable line since). An item must go with a save that releases it.
   */
  #leasable: boolean
  /** The slot the current attempt holds from the lease, if it does. */
  #leased: LeasedSlot | null = null

  /**
   * `holder`: what asks for the slot, as a park reason names it. `leasable`: the position has
   * no record yet (so no item in the store): its attempts may use a slot lease.
   */
  constructor(
    rt: TurnRuntime,
    seq: number,
    lane: QueueLane,
    holder = `step at position ${seq}`,
    leasable = false,
  ) {
    this.#rt = rt
    this.#seq = seq
    this.#lane = lane
    this.#holder = holder
    this.#message = queueSlotMessage(seq)
    this.#leasable = leasable
    if (!leasable) rt.noteQueue(lane.queue)
  }

  get queue(): string {
    return this.#lane.queue
  }

  /**
   * Whether the save of the current attempt's outcome gives a slot back in the store
   * (SaveCheckpointOp.release): not when the attempt holds a leased slot (no item).
   */
  get releasesInStore(): boolean {
    return this.#leased === null
  }

  /** The current attempt is over (or will not start): its leased slot, if any, goes back. */
  endAttempt(): void {
    const leased = this.#leased
    this.#leased = null
    leased?.release()
  }

  /**
   * Hold a slot for attempt `attempt`: from a grant message already in the inbox (a replay),
   * else by saving the position's `waiting` record `step` with the request — which answers
   * whether the position holds a slot (granted by the save with no message, or before it: a
   * replay) — or later by the message a release delivers.
   */
  acquire(step: StepRecordInput, attempt: number, handlers: SlotHandlers): void {
    if (this.#takeGrant(attempt)) return handlers.granted(false)
    const queue = this.#rt.findQueue(this.#lane.queue)
    if (queue === undefined) {
      this.#parkUnknown()
      return handlers.lost()
    }
    let placement: QueuePlacement
    try {
      placement = this.#lane.place()
    } catch (error) {
      return handlers.refused(error)
    }
    if (!this.#leasable) return this.#enqueue(step, attempt, handlers, queue, placement)
    this.#rt.leaseSlot(queue, placement, (slot) => {
      if (slot === null) return this.#enqueue(step, attempt, handlers, queue, placement)
      if (!this.#rt.live) {
        slot.release()
        return handlers.lost()
      }
      this.#leased = slot
      handlers.granted(false)
    })
  }

  /** Ask the store: save the `waiting` record with the request (the durable line). */
  #enqueue(
    step: StepRecordInput,
    attempt: number,
    handlers: SlotHandlers,
    queue: RegisteredQueue,
    placement: QueuePlacement,
  ): void {
    // From now on the position has an item: every outcome releases it in the store.
    this.#leasable = false
    this.#rt.noteQueue(this.#lane.queue)
    const request: QueueRequest = {
      ...placement,
      concurrency: queue.concurrency,
      rateLimit: queue.rateLimit,
      attempt,
    }
    void this.#rt.saveQueued(step, request).then((granted) => {
      if (granted === null || !this.#rt.live) return handlers.lost()
      if (granted) return handlers.granted(false)
      this.#wait(attempt, handlers, queue.rateLimit === null)
      handlers.waiting()
    })
  }

  /**
   * Wait in line: durably (a grant message wakes the run, or a replay finds it), and, for a
   * while, in memory (`hold`) — a grant this engine's writes make is handed over at once. A
   * rate-limited queue's waiter does not hold: its grant comes from a timer, on whichever
   * engine set it, and a grant reaches a suspended run at once (it becomes claimable, and the
   * granting engine looks) but a run held in memory elsewhere only when that engine next
   * reads its inbox.
   */
  #wait(attempt: number, handlers: SlotHandlers, hold: boolean): void {
    let done = false
    const granted = (): void => {
      done = true
      endHold()
      this.#rt.clearWait(this.#seq)
      handlers.granted(true)
    }
    const endHold = hold
      ? this.#rt.holdForGrant(this.#seq, (grant) => {
          if (!done && this.#rt.live && grant.attempt === attempt) granted()
        })
      : () => {}
    const label = `a slot of queue "${this.#lane.queue}"`
    // A recheck runs when this turn reads new messages: granted, or wait on.
    const waitOn = (): void =>
      this.#rt.waitDurably(this.#seq, null, label, null, this.#message, () => {
        if (done || !this.#rt.live) return
        if (this.#takeGrant(attempt)) granted()
        else waitOn()
      })
    waitOn()
  }

  /** The grant of `attempt` in the inbox (grants of earlier attempts are passed over). */
  #takeGrant(attempt: number): boolean {
    const wanted = queueGrantId(this.#seq, attempt)
    for (
      let m = this.#rt.takeMessage(this.#message);
      m !== null;
      m = this.#rt.takeMessage(this.#message)
    )
      if (m.dedupeId === wanted) return true
    return false
  }

  /** A queue this engine does not know: park, as for a step it lacks, until one registers it. */
  #parkUnknown(): void {
    const { queue } = this.#lane
    void this.#rt.park({
      code: ErrorCodes.QUEUE_NOT_REGISTERED,
      message: `queue "${queue}" (${this.#holder}) is not registered on this engine; register it with engine.registerQueue (or EngineOptions.queues) and restart, or cancel the run`,
      details: { queue, seq: this.#seq },
    })
  }
}
