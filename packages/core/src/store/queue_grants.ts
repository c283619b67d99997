/**
 * The grant rule every store applies (StateStore.grantQueueSlots), written once for stores
 * that hold their items in memory; SQL stores express the same order in a query. Among the
 * waiters: the highest priority; within it, the fairness key granted least recently (a key
 * never granted first, then by its last grant number); within that key, enqueue order.
 */

/** A waiting item as the rule needs it. */
export interface QueueWaiter {
  priority: number
  fairnessKey: string
  /** The queue's enqueue counter when the item was stored: its place in line. */
  order: number
}

/**
 * The next waiter to grant, or undefined. `lastGrant(key)`: the queue's grant number of the
 * key's last grant, 0 if never. O(waiters): a pass grants few items (the slots just freed).
 */
export function nextWaiter<T extends QueueWaiter>(
  waiters: Iterable<T>,
  lastGrant: (fairnessKey: string) => number,
): T | undefined {
  let best: T | undefined
  let bestLast = 0
  for (const w of waiters) {
    const last = lastGrant(w.fairnessKey)
    if (best === undefined || before(w, last, best, bestLast)) {
      best = w
      bestLast = last
    }
  }
  return best
}

function before(a: QueueWaiter, aLast: number, b: QueueWaiter, bLast: number): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority
  if (aLast !== bLast) return aLast < bLast
  return a.order < b.order
}
