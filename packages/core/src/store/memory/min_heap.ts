/**
 * A binary min-heap over an array. The claim index keeps one per workflow version so a claim
 * reads the earliest due runs in O(log n) instead of scanning every run.
 */
export class MinHeap<T> {
  readonly #before: (a: T, b: T) => boolean
  #items: T[] = []

  /** `before(a, b)`: a must come out before b. */
  constructor(before: (a: T, b: T) => boolean) {
    this.#before = before
  }

  get size(): number {
    return this.#items.length
  }

  peek(): T | undefined {
    return this.#items[0]
  }

  /** Every item, in no particular order. */
  items(): readonly T[] {
    return this.#items
  }

  push(item: T): void {
    this.#items.push(item)
    this.#siftUp(this.#items.length - 1)
  }

  pop(): T | undefined {
    const items = this.#items
    const top = items[0]
    const last = items.pop()
    if (items.length > 0 && last !== undefined) {
      items[0] = last
      this.#siftDown(0)
    }
    return top
  }

  /** Replace the contents with `items` (used to drop stale entries in one pass). */
  rebuild(items: T[]): void {
    this.#items = items
    for (let i = (items.length >> 1) - 1; i >= 0; i--) this.#siftDown(i)
  }

  #siftUp(index: number): void {
    const items = this.#items
    let i = index
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.#before(items[i] as T, items[parent] as T)) return
      this.#swap(i, parent)
      i = parent
    }
  }

  #siftDown(index: number): void {
    let i = index
    for (;;) {
      const smallest = this.#smallestOf(i, 2 * i + 1, 2 * i + 2)
      if (smallest === i) return
      this.#swap(i, smallest)
      i = smallest
    }
  }

  #smallestOf(i: number, left: number, right: number): number {
    const items = this.#items
    let smallest = i
    if (left < items.length && this.#before(items[left] as T, items[smallest] as T)) smallest = left
    if (right < items.length && this.#before(items[right] as T, items[smallest] as T))
      smallest = right
    return smallest
  }

  #swap(a: number, b: number): void {
    const items = this.#items
    const tmp = items[a] as T
    items[a] = items[b] as T
    items[b] = tmp
  }
}
