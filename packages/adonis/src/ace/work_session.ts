/**
 * How `durable:work` stops. The first SIGINT or SIGTERM closes the engine: it stops claiming,
 * lets executing runs finish or suspend for up to the drain timeout, hands the rest back
 * (`pending`, claimable at once by another process) and closes the store. A second signal
 * during that drain hands back what is still executing at once and exits with code 1.
 *
 * The listeners are prepended, so the engine's close begins with this command's timeout before
 * the app's own SIGTERM handler (bin/console.ts) starts terminating the app; the provider's
 * shutdown then waits for that same close (Engine.close is once-only) instead of closing twice.
 */
import type { DrainResult, Engine } from '@cairn/core'

export type StopSignal = 'SIGINT' | 'SIGTERM'
const SIGNALS: readonly StopSignal[] = ['SIGINT', 'SIGTERM']

/** How long a forced stop waits for the store to take the hand-back before exiting anyway. */
export const FORCED_STOP_WAIT_MS = 5_000

export interface WorkSessionOptions {
  drainTimeoutMs: number
  log: { info(message: string): void; warning(message: string): void }
  /** Ends the process (process.exit outside tests). */
  exit(code: number): void
}

export interface Stopped {
  signal: NodeJS.Signals
  drained: DrainResult
}

export class WorkSession {
  readonly #engine: Engine
  readonly #options: WorkSessionOptions
  #signals = 0
  #listener: ((signal: NodeJS.Signals) => void) | null = null

  constructor(engine: Engine, options: WorkSessionOptions) {
    this.#engine = engine
    this.#options = options
  }

  /** Resolves once a stop signal's drain has finished and the store is closed. */
  untilStopped(): Promise<Stopped> {
    return new Promise((resolve, reject) => {
      this.#listener = (signal: NodeJS.Signals) => {
        this.#signals += 1
        if (this.#signals === 1) {
          this.#options.log.info(
            `${signal} received: draining for up to ${this.#options.drainTimeoutMs} ms (send it again to stop at once)`,
          )
          this.#engine.close(this.#options.drainTimeoutMs).then((drained) => {
            this.dispose()
            resolve({ signal, drained })
          }, reject)
        } else if (this.#signals === 2) {
          void this.#forceStop(signal)
        }
      }
      for (const signal of SIGNALS) process.prependListener(signal, this.#listener)
    })
  }

  /** Removes the signal listeners (once stopped, signals get their usual meaning back). */
  dispose(): void {
    if (this.#listener === null) return
    for (const signal of SIGNALS) process.removeListener(signal, this.#listener)
    this.#listener = null
  }

  async #forceStop(signal: NodeJS.Signals): Promise<void> {
    this.#options.log.warning(`${signal} received again: handing back the executing runs now`)
    // drain(0) releases every executing run's lease in the store: another process takes them at once.
    const handedBack = await Promise.race([
      this.#engine.drain(0).then((drained) => `${drained.released} run(s) handed back`),
      new Promise<string>((resolve) =>
        setTimeout(resolve, FORCED_STOP_WAIT_MS, 'the store did not answer in time').unref(),
      ),
    ]).catch((error: unknown) => `the hand-back failed: ${String(error)}`)
    this.#options.log.warning(`Stopped before the drain finished: ${handedBack}`)
    this.#options.exit(1)
  }
}
