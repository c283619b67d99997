/**
 * A controllable clock for tests: time stands still until you move it. `advance(ms)` fires
 * every timer due on the way, in due order, letting the engine react (commit, deliver,
 * suspend) between them, so sleeps of hours pass in milliseconds.
 */
import type { Clock, TimerHandle } from '../contracts/clock.ts'

interface FakeTimer {
  due: number
  id: number
  fn: () => void
  cancelled: boolean
}

export class FakeClock implements Clock {
  private time: number
  private nextId = 1
  private timers: FakeTimer[] = []
  /**
   * What "let the engine react" means between two timer firings. Default: a few macrotask
   * turns, enough for in-process stores; harnesses on stores with real I/O set it to wait for
   * `engine.whenQuiet()`.
   */
  settler: () => Promise<void> = () => settle()

  constructor(start: number | Date = Date.UTC(2030, 0, 1)) {
    this.time = typeof start === 'number' ? start : start.getTime()
  }

  now(): number {
    return this.time
  }

  /** Fake time is the only time a fake-clocked engine knows: leases age as it advances. */
  monotonic(): number {
    return this.time
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const timer: FakeTimer = {
      due: this.time + Math.max(0, delayMs),
      id: this.nextId++,
      fn,
      cancelled: false,
    }
    this.timers.push(timer)
    return { cancel: () => void (timer.cancelled = true) }
  }

  /** Due time of the earliest pending timer, or null. */
  nextDue(): number | null {
    this.timers = this.timers.filter((t) => !t.cancelled)
    return this.timers.reduce<number | null>(
      (min, t) => (min === null || t.due < min ? t.due : min),
      null,
    )
  }

  /** Move time forward by `ms`, firing due timers in order and letting the engine settle after each. */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.time + ms)
  }

  async advanceTo(target: number): Promise<void> {
    await this.settler()
    for (let timer = this.takeDue(target); timer !== null; timer = this.takeDue(target)) {
      this.time = Math.max(this.time, timer.due)
      timer.fn()
      await this.settler()
    }
    this.time = Math.max(this.time, target)
    await this.settler()
  }

  /** Fire everything pending, however far ahead (up to `limit` timers, against runaway loops). */
  async runAll(limit = 10_000): Promise<void> {
    for (let i = 0; i < limit; i++) {
      await this.settler()
      const due = this.nextDue()
      if (due === null) return
      await this.advanceTo(due)
    }
  }

  private takeDue(target: number): FakeTimer | null {
    let best: FakeTimer | null = null
    for (const t of this.timers) {
      if (t.cancelled || t.due > target) continue
      if (best === null || t.due < best.due || (t.due === best.due && t.id < best.id)) best = t
    }
    if (best !== null) this.timers = this.timers.filter((t) => t !== best)
    return best
  }
}

/** Let pending I/O callbacks, immediates and microtasks run (a few macrotask turns). */
export async function settle(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve))
}
