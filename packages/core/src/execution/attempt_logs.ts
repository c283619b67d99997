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

export class AttemptLogs {
  readonly #rt: TurnRuntime
  readonly #seq: number
  readonly #attempt: number
  readonly #buffer: StepLogBuffer
  #timer: TimerHandle | null = null
  #flushing = false
  #finished = false

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
    this.#buffer.add(level, message, fields)
    const hooks = tracing.current
    if (hooks?.stepLog !== undefined) {
      const ref = { runId: this.#rt.runId, seq: this.#seq, attempt: this.#attempt }
      hooks.stepLog(ref, level, typeof message === 'string' ? message : String(message))
    }
  }

  progress(value: StepProgress): void {
    this.#buffer.progress(value)
  }

  /**
   * The attempt's outcome is being saved: no more live writes; what is not yet stored rides
   * on that save. Lines logged afterwards (code the step left running) are written live.
   */
  finish(): StepLogAppend | undefined {
    this.#finished = true
    this.#timer?.cancel()
    this.#timer = null
    return this.#buffer.pending() ?? undefined
  }

  #arm(): void {
    if (this.#timer !== null || this.#flushing) return
    const delay = this.#finished ? 0 : this.#rt.stepLogs.flushIntervalMs
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
      if (stored) this.#buffer.acknowledge(append)
      // Failed: the lines stay and go with the outcome (or the next flush).
      if (this.#buffer.hasPending && (stored || this.#finished)) this.#arm()
    })
  }
}
