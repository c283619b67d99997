/**
 * Keeps a run's outcomes in delivery order around transactional steps. A batched outcome
 * reaches the workflow in `order` sequence by construction: the committer writes one batch at
 * a time, in queue order. A transactional step commits beside the batches, in a transaction of
 * its own, so while its outcome (order k) is not yet delivered, outcomes of higher orders wait
 * here: replay delivers recorded outcomes by order, and must see the sequence the first
 * execution saw.
 */
interface Waiting {
  order: number
  deliver: () => void
}

export class DeliveryHold {
  /** Orders given to transactional steps whose outcome is not yet delivered (or dropped). */
  private readonly reserved = new Set<number>()
  private waiting: Waiting[] = []

  /** No transactional outcome pending: deliver at once (the common case, checked first). */
  get idle(): boolean {
    return this.reserved.size === 0
  }

  /** A transactional step took `order`: later orders wait until it is released. */
  reserve(order: number): void {
    this.reserved.add(order)
  }

  /** Deliver the outcome of `order` now, or once no reserved order below it remains. */
  deliver(order: number, deliver: () => void): void {
    if (this.reserved.size === 0 || !this.blocked(order)) return deliver()
    this.waiting.push({ order, deliver })
  }

  /** The step of `order` is delivered or will never be: what waited only on it goes now. */
  release(order: number): void {
    if (!this.reserved.delete(order) || this.waiting.length === 0) return
    const ready = this.waiting.filter((w) => !this.blocked(w.order))
    this.waiting = this.waiting.filter((w) => this.blocked(w.order))
    ready.sort((a, b) => a.order - b.order)
    for (const w of ready) w.deliver()
  }

  /** The turn ended: nothing is delivered any more. */
  clear(): void {
    this.reserved.clear()
    this.waiting = []
  }

  private blocked(order: number): boolean {
    for (const reserved of this.reserved) if (reserved < order) return true
    return false
  }
}
