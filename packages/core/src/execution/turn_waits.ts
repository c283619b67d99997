/**
 * A turn's durable waits — the positions the run could suspend on (long sleeps, retry
 * back-offs, signal/child/update/event waits, remote results, queue grants) — the in-turn
 * timer of each, and the turn's other timers (short waits kept in memory, the execution
 * deadline). The one owner of that state: the turn registers waits and timers, the suspend
 * reads the waits, a message re-evaluates them, and a cached turn pauses and re-arms them
 * (engine/run_cache.ts).
 */
import type { Clock, TimerHandle } from '../contracts/clock.ts'
import type { CheckpointRecord } from '../contracts/records.ts'
import type { EventWaitToRegister } from '../contracts/state_store.ts'

export interface DurableWait {
  /** Null: no timer (a signal wait without timeout). */
  wakeAt: number | null
  label: string
  /** The `waiting` record the suspend writes; null once it is durable. */
  pending: CheckpointRecord | null
  /** The message that ends the wait (its name in the inbox); none for a timer. */
  message?: string
  /** Re-evaluates the wait in this turn (a message arrived, or its time came), if it can. */
  recheck?: () => void
  /** An event wait's registration, written with the suspend. */
  event?: EventWaitToRegister
  /** A remote step's wait: what no live worker offers, asked at the suspend (probeBlocked). */
  blockedProbe?: () => string | null
  /** What the wait's timer does when its time comes (see arm): kept to re-arm it. */
  due?: () => void
  /**
   * What a resumed turn does with the wait (TurnRuntime.waitDurably's `onResume`), in place of
   * its timer and recheck: an event wait evaluated as a replay evaluates a registered one.
   */
  onResume?: () => void
}

export interface TurnWaitsHost {
  /** The turn can still act (a timer firing after its end does nothing). */
  readonly live: boolean
  /** A timer acted: the turn may have become idle. */
  afterTimer(): void
}

export class TurnWaits {
  readonly #waits = new Map<number, DurableWait>()
  /** The in-turn timer of each durable wait with a time (see arm). */
  readonly #timers = new Map<number, TimerHandle>()
  /** Timers held for this turn only (hold): short waits, the execution deadline. */
  readonly #held = new Set<TimerHandle>()
  /**
   * Positions whose `waiting` record a suspend of this turn wrote (markDurable): a wait opened
   * there again — a message wait re-registering after a resume — has none left to write.
   */
  readonly #durable = new Set<number>()
  readonly #clock: Clock
  readonly #host: TurnWaitsHost

  constructor(clock: Clock, host: TurnWaitsHost) {
    this.#clock = clock
    this.#host = host
  }

  get size(): number {
    return this.#waits.size
  }

  /** The open waits by position (the suspend's view). */
  get all(): ReadonlyMap<number, DurableWait> {
    return this.#waits
  }

  get(seq: number): DurableWait | undefined {
    return this.#waits.get(seq)
  }

  /** Open `wait` at `seq`; with `due`, its timer calls it at `wait.wakeAt` (arm). */
  open(seq: number, wait: DurableWait, due?: () => void): void {
    if (this.#durable.has(seq)) wait.pending = null
    this.#waits.set(seq, wait)
    if (due === undefined || wait.wakeAt === null) return
    wait.due = () => {
      this.#waits.delete(seq)
      due()
    }
    this.arm(seq, wait)
  }

  /** The wait at `seq` is over: its timer goes with it. */
  close(seq: number): void {
    this.#waits.delete(seq)
    this.#timers.get(seq)?.cancel()
    this.#timers.delete(seq)
  }

  /**
   * A durable wait whose time comes while the turn is still busy (another branch runs a long
   * step, so it cannot suspend) fires here, on time — `Promise.race([longStep, ctx.sleep(…)])`
   * is a timeout — instead of when the turn could have suspended. Not counted as work: it
   * never keeps the turn from suspending, and suspending cancels it.
   */
  private arm(seq: number, wait: DurableWait): void {
    const due = wait.due
    if (due === undefined || wait.wakeAt === null) return
    this.#timers.get(seq)?.cancel()
    const timer = this.#clock.setTimer(wait.wakeAt - this.#clock.now(), () => {
      this.#timers.delete(seq)
      if (!this.#host.live || this.#waits.get(seq) !== wait) return
      due()
      this.#host.afterTimer()
    })
    this.#timers.set(seq, timer)
  }

  /**
   * A timer of this turn only — a short wait kept in memory, the execution deadline — gone
   * with the turn's pause or end (a resumed turn arms what it needs again).
   */
  hold(delayMs: number, fire: () => void): void {
    const timer = this.#clock.setTimer(delayMs, () => {
      this.#held.delete(timer)
      fire()
    })
    this.#held.add(timer)
  }

  /** Whether a wait a message ends is open (one taking `name`, when given). */
  hasMessageWaits(name?: string): boolean {
    for (const wait of this.#waits.values())
      if (wait.recheck !== undefined && (name === undefined || wait.message === name)) return true
    return false
  }

  /**
   * Re-evaluate the waits a message could end (signals, children, updates, remote results,
   * grants; not events, see event_wait.ts), in position order; each completes or waits again.
   * A wait that throws (it cannot read what arrived for it) stops the pass: `onUnreadable`.
   */
  recheckAll(onUnreadable: (seq: number, error: unknown) => void): void {
    const waiting = [...this.#waits].filter(([, w]) => w.recheck !== undefined)
    for (const [seq, wait] of waiting.sort(([a], [b]) => a - b)) {
      if (!this.#host.live) return
      if (this.#waits.get(seq) !== wait) continue
      this.#waits.delete(seq)
      try {
        wait.recheck?.()
      } catch (error) {
        return onUnreadable(seq, error)
      }
    }
  }

  /**
   * Every open wait can go on in this very turn after a suspend: a message re-evaluates it, its
   * timer does what it would have done in a busy turn, or it says what a resume does with it
   * (`onResume`: an event wait, registered by the suspend that keeps the turn and read against
   * the event log then). The run cache keeps only such turns.
   */
  get resumable(): boolean {
    for (const wait of this.#waits.values()) {
      if (wait.onResume !== undefined) continue
      if (wait.event !== undefined) return false
      if (wait.recheck === undefined && (wait.message !== undefined || wait.due === undefined))
        return false
    }
    return true
  }

  /** The suspend wrote every pending record: a later suspend of this turn has none to write. */
  markDurable(): void {
    for (const [seq, wait] of this.#waits) {
      if (wait.pending !== null) this.#durable.add(seq)
      wait.pending = null
    }
  }

  /** Stop every timer, keeping the waits (a turn cached while its run waits in the store). */
  pause(): void {
    for (const timer of this.#timers.values()) timer.cancel()
    this.#timers.clear()
    for (const timer of this.#held) timer.cancel()
    this.#held.clear()
  }

  /**
   * A cached turn resumes, its inbox holding what arrived while it was paused: every open wait
   * is looked at once, in position order — as the replay this stands for would reach them — a
   * wait whose time has passed fires, a wait a message ends re-evaluates (it takes its message,
   * or waits again), and the rest arm their timers again. A wait that throws stops the pass:
   * `onUnreadable`.
   */
  resume(onUnreadable: (seq: number, error: unknown) => void): void {
    const now = this.#clock.now()
    const open = [...this.#waits].sort(([a], [b]) => a - b)
    for (const [seq, wait] of open) {
      if (!this.#host.live) return
      if (this.#waits.get(seq) !== wait) continue
      try {
        if (wait.onResume !== undefined) {
          this.#waits.delete(seq)
          wait.onResume()
        } else if (wait.due !== undefined && wait.wakeAt !== null && wait.wakeAt <= now) wait.due()
        else if (wait.recheck !== undefined) {
          this.#waits.delete(seq)
          wait.recheck()
        } else this.arm(seq, wait)
      } catch (error) {
        return onUnreadable(seq, error)
      }
    }
  }

  /** The turn is over: every wait and timer goes. */
  clear(): void {
    this.pause()
    this.#waits.clear()
    this.#durable.clear()
  }
}
