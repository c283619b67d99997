/**
 * One store read of a run for every live stream that asks for it on the same engine event.
 * Every stream listens to the engine's events; on one event, each would read the run the event
 * names — with 500 streams open, 500 reads per run change, which slowed run creation tenfold.
 * Reads asked for in the same tick (one event's listeners all run in one) share one; a read
 * asked for later — after another event — is a new one, so no stream is handed a state older
 * than the event it reacts to.
 */
import type { Engine, RunInfo } from '@cairn/core'

export class SharedReads {
  readonly #engine: Engine
  readonly #thisTick = new Map<string, Promise<RunInfo | null>>()

  constructor(engine: Engine) {
    this.#engine = engine
  }

  getRun(runId: string): Promise<RunInfo | null> {
    const shared = this.#thisTick.get(runId)
    if (shared !== undefined) return shared
    const read = this.#engine.getRun(runId)
    this.#thisTick.set(runId, read)
    queueMicrotask(() => this.#thisTick.delete(runId))
    return read
  }
}
