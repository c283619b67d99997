/**
 * A read for scrapes (engine.backlog(), engine.listWorkers()): one read per `cacheMs` however
 * many scrapes arrive (they share the read in flight and then its result), bounded by
 * `timeoutMs`. A read that fails or times out keeps the last value and counts an error, and the
 * next attempt waits out the cache period too, so a sick store or broker is asked once per
 * period, never in a loop.
 */
export interface Reading<T> {
  value: T
  /** Engine clock when read: ages are measured from it. */
  readAt: number
}

export interface CachedReaderOptions {
  cacheMs: number
  timeoutMs: number
  /** What is read, for the timeout's message (`backlog`, `workers`). */
  what: string
  /** The engine clock, for `readAt`. */
  now(): number
  /** Called once per failed read. */
  onError(error: unknown): void
}

export class CachedReader<T> {
  readonly #read: () => Promise<T>
  readonly #options: CachedReaderOptions
  #last: Reading<T> | null = null
  /** performance.now() when the last read ended (real time: the cache guards the source). */
  #endedAt = -Infinity
  #inFlight: Promise<void> | null = null

  constructor(read: () => Promise<T>, options: CachedReaderOptions) {
    this.#read = read
    this.#options = options
  }

  /** The latest successful reading, refreshed first if the cached one is older than cacheMs. */
  async current(): Promise<Reading<T> | null> {
    if (performance.now() - this.#endedAt >= this.#options.cacheMs) {
      this.#inFlight ??= this.#refresh().finally(() => (this.#inFlight = null))
      await this.#inFlight
    }
    return this.#last
  }

  async #refresh(): Promise<void> {
    try {
      const { timeoutMs, what } = this.#options
      const value = await withTimeout(this.#read(), timeoutMs, what)
      this.#last = { value, readAt: this.#options.now() }
    } catch (error) {
      this.#options.onError(error)
    } finally {
      this.#endedAt = performance.now()
    }
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} read timed out after ${ms} ms`)), ms)
    timer.unref()
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}
