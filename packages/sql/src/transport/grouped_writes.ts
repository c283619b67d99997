/**
 * Writes that wait for the one in flight and then go together: while a batch is being written,
 * the items that arrive meanwhile are queued and written next, in one statement or transaction;
 * each caller's promise settles with its batch. Alone, an item is written at once. Under load
 * (50 steps finishing at once on one worker) that is one round trip for many instead of one
 * each, on a pool of a few connections.
 */
interface Pending<T> {
  item: T
  resolve(): void
  reject(error: unknown): void
}

export class GroupedWrites<T> {
  readonly #write: (items: readonly T[]) => Promise<void>
  readonly #maxBatch: number
  #queue: Pending<T>[] = []
  #writing = false

  constructor(write: (items: readonly T[]) => Promise<void>, maxBatch = 500) {
    this.#write = write
    this.#maxBatch = maxBatch
  }

  /** Resolves once the batch holding `item` is written; rejects with that batch's error. */
  add(item: T): Promise<void> {
    const { promise, resolve, reject } = Promise.withResolvers<void>()
    this.#queue.push({ item, resolve, reject })
    if (!this.#writing) void this.#drain()
    return promise
  }

  async #drain(): Promise<void> {
    this.#writing = true
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#maxBatch)
      try {
        await this.#write(batch.map((p) => p.item))
        for (const p of batch) p.resolve()
      } catch (error) {
        for (const p of batch) p.reject(error)
      }
    }
    this.#writing = false
  }
}
