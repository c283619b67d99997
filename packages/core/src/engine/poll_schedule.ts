/**
 * When the driver polls the store next: as soon as capacity frees after a full claim, at the
 * earliest known due time, soon again after a poll that found work (backing off while polls
 * find none), and at the latest every `intervalMs` as a safety net for work
 * started by other processes. One poll runs at a time; requests during a poll coalesce.
 */
import type { Clock, TimerHandle } from '../contracts/clock.ts'

function immediate(fn: () => void): TimerHandle {
  const handle = setImmediate(fn)
  return { cancel: () => clearImmediate(handle) }
}

/** The shortest gap between two polls that find nothing (right after one that found work). */
const MIN_IDLE_DELAY_MS = 25

export class PollSchedule {
  private timer: TimerHandle | null = null
  private timerAt = Number.POSITIVE_INFINITY
  private running = false
  private again = false
  private waitingForCapacity = false
  private stopped = false
  private immediatePending = false
  private readonly clock: Clock
  private readonly intervalMs: number
  private idleDelayMs: number
  private readonly poll: () => Promise<void>

  constructor(clock: Clock, intervalMs: number, poll: () => Promise<void>) {
    this.clock = clock
    this.intervalMs = intervalMs
    this.idleDelayMs = Math.min(MIN_IDLE_DELAY_MS, intervalMs)
    this.poll = poll
  }

  /** Poll as soon as possible. */
  now(): void {
    this.stopped = false
    this.at(this.clock.now())
  }

  /** Poll no later than `time`. */
  at(time: number): void {
    if (this.stopped) return
    if (this.running) {
      if (time <= this.clock.now()) this.again = true
      else this.arm(time)
      return
    }
    this.arm(time)
  }

  after(ms: number): void {
    this.at(this.clock.now() + ms)
  }

  /** After a poll that left work unclaimed: next at `nextAvailableAt`, or the safety-net interval. */
  afterPoll(nextAvailableAt: number | null, claimed: number): void {
    // Adaptive back-off for work started by other processes without a push hint (MySQL, SQLite
    // across processes): soon after a poll that found work, doubling while polls find none,
    // up to the safety-net interval.
    this.idleDelayMs =
      claimed > 0 ? MIN_IDLE_DELAY_MS : Math.min(this.idleDelayMs * 2, this.intervalMs)
    const fallback = this.clock.now() + this.idleDelayMs
    this.at(nextAvailableAt === null ? fallback : Math.min(nextAvailableAt, fallback))
  }

  /** The last poll filled every slot: poll again when one frees. */
  whenCapacity(): void {
    this.waitingForCapacity = true
    this.after(this.intervalMs)
  }

  capacityFreed(): void {
    if (!this.waitingForCapacity) return
    this.waitingForCapacity = false
    this.now()
  }

  stop(): void {
    this.stopped = true
    this.immediatePending = false
    this.timer?.cancel()
    this.timer = null
    this.timerAt = Number.POSITIVE_INFINITY
  }

  /** A poll is running or about to (not one waiting for a future time). */
  get busy(): boolean {
    return this.running || this.immediatePending
  }

  private arm(time: number): void {
    if (time >= this.timerAt) return
    this.timer?.cancel()
    this.timerAt = time
    const delay = time - this.clock.now()
    // "Now" is not a point in clock time: an injected (fake) clock must not hold it back.
    this.timer =
      delay <= 0
        ? immediate(() => void this.fire())
        : this.clock.setTimer(delay, () => void this.fire())
  }

  private async fire(): Promise<void> {
    this.immediatePending = false
    this.timer = null
    this.timerAt = Number.POSITIVE_INFINITY
    if (this.stopped) return
    if (this.running) {
      this.again = true
      return
    }
    await this.runOnce()
  }

  private async runOnce(): Promise<void> {
    this.running = true
    this.again = false
    try {
      await this.poll()
    } catch {
      // A failed poll (store down) is retried at the safety-net interval; the driver logs.
      this.after(this.intervalMs)
    } finally {
      this.running = false
    }
    if (this.again && !this.stopped) this.now()
  }
}
