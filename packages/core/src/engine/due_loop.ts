/**
 * The loop every "claim what is due, act on it" job of a driving engine runs (event
 * accumulators, schedules): one pass at a time (a request during a pass runs another after
 * it), then a timer for the next look — at the `nextAt` the pass reported, no later than the
 * sweep interval (work another engine made, whose timer went with it), no sooner than
 * RECHECK_MS (a `nextAt` already past is a row another claimer holds: claiming at once would
 * pass over it again and again). A pass that fails (the store unreachable) is retried after
 * RETRY_MS. Stopped, it sets no timer and starts no pass.
 */
import type { TimerHandle } from '../contracts/clock.ts'
import type { ResolvedEngineOptions } from './options.ts'

/** After a pass that failed (the store unreachable), look again this much later. */
const RETRY_MS = 1_000
/** The soonest a look follows the last one when nothing more was claimable then. */
const RECHECK_MS = 50

/** A job a driving engine runs beside its claims (Driver: started, stopped, waited for). */
export interface DrivingJob {
  start(): void
  stop(): void
  readonly busy: boolean
}

/** What a pass reports: the next due time it knows (null: none), or 'more' (a full claim). */
export type PassResult = number | null | 'more'

export interface DueLoopJob {
  /** One claim-and-act pass. `active()` turns false when the loop is stopped mid-pass. */
  pass(active: () => boolean): Promise<PassResult>
  /** Logged at `error` when a pass throws. */
  failure: string
}

export class DueLoop {
  readonly #options: ResolvedEngineOptions
  readonly #job: DueLoopJob
  #active = false
  #timer: TimerHandle | null = null
  #timerAt: number | null = null
  #running = false
  #again = false
  /** A pass is in flight (harnesses wait for it before moving a fake clock; drains wait too). */
  busy = false

  constructor(options: ResolvedEngineOptions, job: DueLoopJob) {
    this.#options = options
    this.#job = job
  }

  get active(): boolean {
    return this.#active
  }

  /** Start looking (a pass now), until stop. */
  start(): void {
    this.#active = true
    void this.#run()
  }

  stop(): void {
    this.#active = false
    this.#timer?.cancel()
    this.#timer = null
    this.#timerAt = null
  }

  /** Something is due at `at`: a pass then (now if past), if running. */
  dueAt(at: number): void {
    if (!this.#active) return
    if (at <= this.#options.clock.now()) void this.#run()
    else this.#schedule(at)
  }

  /** A pass now (what it may claim changed), if running. */
  now(): void {
    if (this.#active) void this.#run()
  }

  get #sweepMs(): number {
    return Math.max(1_000, Math.floor(this.#options.parkUnrunnableAfterMs / 2))
  }

  /** A timer at `at` (an earlier one set stands); never fires in place, never after stop. */
  #schedule(at: number): void {
    if (!this.#active) return
    if (this.#timerAt !== null && this.#timerAt <= at) return
    this.#timer?.cancel()
    const { clock } = this.#options
    this.#timerAt = at
    this.#timer = clock.setTimer(Math.max(0, at - clock.now()), () => {
      this.#timer = null
      this.#timerAt = null
      void this.#run()
    })
  }

  async #run(): Promise<void> {
    if (!this.#active) return
    if (this.#running) {
      this.#again = true
      return
    }
    this.#running = true
    this.busy = true
    const { clock, logger } = this.#options
    try {
      for (;;) {
        this.#again = false
        const next = await this.#job.pass(() => this.#active)
        if (!this.#active) return
        if (next === 'more' || this.#again) continue
        this.#schedule(this.#nextLook(next))
        return
      }
    } catch (error) {
      logger.error({ err: error }, this.#job.failure)
      this.#schedule(clock.now() + RETRY_MS)
    } finally {
      this.#running = false
      this.busy = false
    }
  }

  #nextLook(nextAt: number | null): number {
    const now = this.#options.clock.now()
    const sweep = now + this.#sweepMs
    if (nextAt === null) return sweep
    return Math.max(Math.min(nextAt, sweep), now + RECHECK_MS)
  }
}
