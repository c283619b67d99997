/**
 * What a worker's `receive` need not ask Redis again until something changes: the routes hash,
 * which of its queues it found empty, and when the next delayed task is due. Before it, every
 * `receive` read the routes, fetched once more from a queue it had just drained and read the
 * delayed set — five round trips around each task taken, where one fetch is the work.
 *
 * What changes a queue reaches the worker as a wake on the pub/sub channel (a publish, a hand-back,
 * a stalled task put back); a wake for any queue, or the end of a wait (the poll interval, a
 * delayed task's time), forgets every "empty" and the due time. Each is kept with the count of
 * wakes seen when its read began, so a wake that lands while a fetch is on its way is never
 * lost: the mark is stale at once. Routes are read again after `maxAgeMs`, or at once when a wake
 * names a queue they do not list.
 */
export class LookCache {
  readonly #maxAgeMs: number
  /** Wakes seen (and waits ended): the generation every mark is checked against. */
  #wakes = 0
  readonly #emptyAt = new Map<string, number>()
  #nextDue: { at: number; wakes: number } | null = null
  #routes: { value: Record<string, string>; readAt: number } | null = null

  constructor(maxAgeMs: number) {
    this.#maxAgeMs = maxAgeMs
  }

  /** The generation a read starts in: pass it to `markEmpty` / `setNextDue`. */
  get generation(): number {
    return this.#wakes
  }

  /** A wake for `queue` (`''`: for every queue). */
  woke(queue: string): void {
    this.#wakes += 1
    if (queue !== '' && this.#routes !== null && !Object.hasOwn(this.#routes.value, queue))
      this.#routes = null // a queue the routes do not list yet
  }

  /** A wait ended without a wake: anything may have become due. */
  expire(): void {
    this.#wakes += 1
  }

  routes(now: number): Record<string, string> | null {
    if (this.#routes === null || now - this.#routes.readAt > this.#maxAgeMs) return null
    return this.#routes.value
  }

  setRoutes(value: Record<string, string>, readAt: number): void {
    this.#routes = { value, readAt }
  }

  markEmpty(queue: string, generation: number): void {
    this.#emptyAt.set(queue, generation)
  }

  isEmpty(queue: string): boolean {
    return this.#emptyAt.get(queue) === this.#wakes
  }

  /** When the next delayed task is due (epoch ms, Infinity for none), if still known. */
  nextDue(): number | null {
    return this.#nextDue !== null && this.#nextDue.wakes === this.#wakes ? this.#nextDue.at : null
  }

  setNextDue(at: number, generation: number): void {
    this.#nextDue = { at, wakes: generation }
  }
}
