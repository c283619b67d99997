/**
 * engine.backlog() for scrapes: one read per `cacheMs` however many scrapes arrive (they share
 * the read in flight and then its result), bounded by `timeoutMs`. A read that fails or times
 * out keeps the last values and counts an error, and the next attempt waits out the cache
 * period too, so a sick store is asked once per period, never in a loop.
 */
import type { Engine } from '@cairn/core'
import type { RunBacklog } from '@cairn/core/contracts'

export interface BacklogReading {
  backlog: RunBacklog
  /** Engine clock when read: ages are measured from it. */
  readAt: number
}

export interface BacklogReaderOptions {
  cacheMs: number
  timeoutMs: number
  /** Called once per failed read. */
  onError(error: unknown): void
}

export class BacklogReader {
  readonly #engine: Engine
  readonly #options: BacklogReaderOptions
  #last: BacklogReading | null = null
  /** performance.now() when the last read ended (real time: the cache guards the store). */
  #endedAt = -Infinity
  #inFlight: Promise<void> | null = null

  constructor(engine: Engine, options: BacklogReaderOptions) {
    this.#engine = engine
    this.#options = options
  }

  /** The latest successful reading, refreshed first if the cached one is older than cacheMs. */
  async current(): Promise<BacklogReading | null> {
    if (performance.now() - this.#endedAt >= this.#options.cacheMs) {
      this.#inFlight ??= this.#read().finally(() => (this.#inFlight = null))
      await this.#inFlight
    }
    return this.#last
  }

  async #read(): Promise<void> {
    try {
      const backlog = await withTimeout(this.#engine.backlog(), this.#options.timeoutMs)
      this.#last = { backlog, readAt: this.#engine.options.clock.now() }
    } catch (error) {
      this.#options.onError(error)
    } finally {
      this.#endedAt = performance.now()
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`backlog read timed out after ${ms} ms`)), ms)
    timer.unref()
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
