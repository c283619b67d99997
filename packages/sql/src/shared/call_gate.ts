/**
 * Counts calls in flight so close() can wait for them: ending a pool under a running
 * transaction, or closing SQLite between two busy retries of a call, would turn a clean answer
 * into a connection error or a crash. Used by every SQL store.
 */
export class CallGate {
  #inFlight = 0
  #idle: (() => void)[] = []

  enter(): void {
    this.#inFlight++
  }

  leave(): void {
    this.#inFlight--
    if (this.#inFlight === 0) for (const resolve of this.#idle.splice(0)) resolve()
  }

  /** Resolves once no call is in flight. */
  drain(): Promise<void> {
    if (this.#inFlight === 0) return Promise.resolve()
    return new Promise((resolve) => this.#idle.push(resolve))
  }
}
