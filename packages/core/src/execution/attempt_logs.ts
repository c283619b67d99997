/**
 * One in-process step attempt's lines and progress (`stepCtx.log`, `stepCtx.progress`): kept
 * in a StepLogBuffer, written live at most every `stepLogs.flushIntervalMs` while the attempt
 * runs, and handed to the save of its outcome (which carries every line not yet stored — an
 * attempt that ends sooner than the interval costs no extra write). Each line is also an
 * event of the attempt's span when tracing is installed.
 */
import type { TimerHandle } from '../contracts/clock.ts'
import type { StepLogAppend, StepLogLevel } from '../contracts/step_logs.ts'
import { StepLogBuffer } from '../step_logs/step_log_buffer.ts'
import type { TurnRuntime } from './runtime.ts'
import { tracing } from './tracing_hooks.ts'
import type { StepProgress } from './types.ts'

/** Failed live writes in a row, once an attempt ended, after which its lines are given up. */
const MAX_LATE_FAILURES = 5

export class AttemptLogs {
  readonly #rt: TurnRuntime
  readonly #seq: number
  readonly #attempt: number
  readonly #buffer: StepLogBuffer
  #timer: TimerHandle | null = null
  #flushing = false
  #finished = false
  /** Live writes failed in a row since the attempt ended. */
  #failures = 0

  constructor(rt: TurnRuntime, seq: number, name: string, attempt: number) {
    this.#rt = rt
    this.#seq = seq
    this.#attempt = attempt
    this.#buffer = new StepLogBuffer({
      runId: rt.runId,
      seq,
      name,
      // One execution per lease and attempt: a run taken over numbers its lines anew.
      execution: `e${rt.fence.epoch}a${attempt}`,
      attempt,
      maxEntries: rt.stepLogs.maxEntries,
      codec: rt.codec,
      now: () => rt.clock.now(),
      onChange: () => this.#arm(),
    })
  }

  log(level: StepLogLevel, message: unknown, fields: unknown): void {
    const entry = this.#buffer.add(level, message, fields)
    const hooks = tracing.current
    if (hooks?.stepLog === undefined) return
    try {
      hooks.stepLog(
        { runId: this.#rt.runId, seq: this.#seq, attempt: this.#attempt },
        level,
        entry.message,
      )
    } catch {
      // Tracing must not break the step: the line is kept all the same.
    }
  }

  progress(value: StepProgress): void {
    this.#buffer.progress(value)
  }

  /**
   * The attempt's outcome is being saved: what is not yet stored rides on that save (which
   * does not tell back here; sending a line again is harmless). Lines logged afterwards — by
   * code the step left running — are written live.
   */
  finish(): StepLogAppend | undefined {
    this.#finished = true
    this.#timer?.cancel()
    this.#timer = null
    return this.#buffer.pending() ?? undefined
  }

  /** The attempt ended with no save to carry its lines (a late outcome): written live. */
  finishLive(): void {
    this.#finished = true
    this.#arm()
  }

  /**
   * While the attempt runs, a write every `flushIntervalMs`; once it ended, the same, backing
   * off after failures and giving up after MAX_LATE_FAILURES of them in a row (the store is
   * down, the engine closed): never a loop.
   */
  #arm(): void {
    if (this.#timer !== null || this.#flushing || !this.#buffer.hasPending) return
    if (this.#failures >= MAX_LATE_FAILURES) return
    const delay = this.#rt.stepLogs.flushIntervalMs * 2 ** this.#failures
    this.#timer = this.#rt.clock.setTimer(delay, () => {
      this.#timer = null
      this.#flush()
    })
  }

  #flush(): void {
    const append = this.#buffer.pending()
    if (append === null) return
    this.#flushing = true
    void this.#rt.stepLogs.append(append).then((stored) => {
      this.#flushing = false
      if (stored) {
        this.#buffer.acknowledge(append)
        this.#failures = 0
      } else if (this.#finished) this.#failures += 1
      // Failed while running: the lines stay and go with the outcome (or the next flush).
      if (stored || this.#finished) this.#arm()
    })
  }
}
