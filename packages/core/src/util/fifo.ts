/**
 * A first-in first-out queue with O(1) take from the front. `Array.prototype.shift` is O(n)
 * once V8 stops moving an array's start in place (past roughly 16k elements): a run replaying
 * a long history queued its outcomes in an array and took them with shift, which made resuming
 * a 40k-position history quadratic (issue 18). Here the front is an index; the consumed prefix
 * is cut away once it is both large and the bigger half, so memory stays proportional to what
 * is queued and each element is copied O(1) times on average.
 */
export class Fifo<T> {
  #items: T[] = []
  #head = 0

  get length(): number {
    return this.#items.length - this.#head
  }

  push(item: T): void {
    this.#items.push(item)
  }

  /** The oldest item, removed; undefined when empty. */
  shift(): T | undefined {
    if (this.#head >= this.#items.length) return undefined
    const item = this.#items[this.#head] as T
    this.#items[this.#head] = undefined as T // let it be collected
    this.#head += 1
    if (this.#head >= COMPACT_AT && this.#head * 2 >= this.#items.length) this.#compact()
    else if (this.#head === this.#items.length) this.clear()
    return item
  }

  clear(): void {
    this.#items = []
    this.#head = 0
  }

  #compact(): void {
    this.#items = this.#items.slice(this.#head)
    this.#head = 0
  }
}

/** A consumed prefix worth cutting away (below it, the array is left as it is). */
const COMPACT_AT = 1024
