/**
 * How an idle receive or consumer waits: until a NOTIFY (Postgres), a poke from this process,
 * the poll interval, a due time, or an abort — whichever comes first. A wake that arrives while
 * nobody waits is remembered, so a row inserted between "found nothing" and "start waiting" is
 * not slept through.
 */
export class Wakeup {
  #pending = false
  readonly #waiters = new Set<() => void>()

  wake(): void {
    if (this.#waiters.size === 0) {
      this.#pending = true
      return
    }
    for (const resolve of [...this.#waiters]) resolve()
  }

  /** Forgets a remembered wake: call just before looking for rows. */
  clear(): void {
    this.#pending = false
  }

  wait(ms: number, signal?: AbortSignal): Promise<void> {
    if (this.#pending || signal?.aborted === true) {
      this.#pending = false
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.#waiters.delete(done)
        signal?.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, Math.max(0, ms))
      this.#waiters.add(done)
      signal?.addEventListener('abort', done, { once: true })
    })
  }
}
