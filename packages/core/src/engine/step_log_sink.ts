/**
 * Where live step lines go (StateStore.appendStepLogs): a running in-process step's throttled
 * flushes and remote workers' heartbeats. Appends arriving in the same tick share one store
 * call (at most MAX_STEP_LOG_APPENDS each). A failed write is logged, never thrown: the lines
 * stay with their producer, which sends them again with the step's outcome.
 */
import type { Logger } from '../contracts/logger.ts'
import type { StateStore } from '../contracts/state_store.ts'
import type { StepLogAppend } from '../contracts/step_logs.ts'
import type { Clock } from '../contracts/clock.ts'
import { MAX_STEP_LOG_APPENDS } from '../step_logs/step_log_rules.ts'
import type { ResolvedStepLogs } from './step_log_options.ts'

interface Waiting {
  append: StepLogAppend
  stored: (ok: boolean) => void
}

export class StepLogSink {
  readonly maxEntries: number
  readonly flushIntervalMs: number
  /** The engine's logger: where a producer reports lines it could not keep. */
  readonly logger: Logger
  readonly #store: StateStore
  readonly #clock: Clock
  #waiting: Waiting[] = []
  #scheduled = false

  constructor(store: StateStore, clock: Clock, logger: Logger, settings: ResolvedStepLogs) {
    this.#store = store
    this.#clock = clock
    this.logger = logger
    this.maxEntries = settings.maxEntries
    this.flushIntervalMs = settings.flushIntervalMs
  }

  /** Stores `append` soon; resolves true once stored, false when the write failed. */
  append(append: StepLogAppend): Promise<boolean> {
    const { promise, resolve } = Promise.withResolvers<boolean>()
    this.#waiting.push({ append, stored: resolve })
    if (!this.#scheduled) {
      this.#scheduled = true
      setImmediate(() => this.#send())
    }
    return promise
  }

  #send(): void {
    this.#scheduled = false
    const all = this.#waiting
    this.#waiting = []
    for (let i = 0; i < all.length; i += MAX_STEP_LOG_APPENDS)
      void this.#write(all.slice(i, i + MAX_STEP_LOG_APPENDS))
  }

  async #write(batch: Waiting[]): Promise<void> {
    let ok = true
    try {
      await this.#store.appendStepLogs(
        batch.map((w) => w.append),
        this.#clock.now(),
      )
    } catch (error) {
      ok = false
      this.logger.warn(
        { err: error, positions: batch.length },
        'could not store step log lines; they are sent again with the steps’ outcomes',
      )
    }
    for (const waiting of batch) waiting.stored(ok)
  }
}
