/**
 * This engine's slot leases, one holder per queue that uses them (queue_lease_holder.ts):
 * queues registered with `slotLeases: true`, without a rate (a rated queue's grants are
 * logged one by one: it keeps the durable line), on a store that offers leaseQueueSlots.
 */
import type { StateStore } from '../contracts/index.ts'
import type { RegisteredQueue } from './queue_registry.ts'
import { QueueLeaseHolder, type LeaseAnswer, type LeaseHolderDeps } from './queue_lease_holder.ts'

export type { LeasedSlot, LeaseAnswer } from './queue_lease_holder.ts'

export interface SlotLeaseDeps extends Omit<LeaseHolderDeps, 'store'> {
  store: StateStore
}

export class SlotLeases {
  readonly #deps: SlotLeaseDeps
  readonly #holders = new Map<string, QueueLeaseHolder>()
  #closed = false

  constructor(deps: SlotLeaseDeps) {
    this.#deps = deps
  }

  /**
   * Whether attempts on `queue` take their slots from a lease here (QueueRegistry refuses
   * `slotLeases` with a rate limit, so a leased queue has none).
   */
  serves(queue: RegisteredQueue): boolean {
    return queue.slotLeases && !this.#closed && this.#deps.store.leaseQueueSlots !== undefined
  }

  /** A slot of `queue` for one attempt (QueueLeaseHolder.acquire); null: the durable path. */
  acquire(
    queue: RegisteredQueue,
    priority: number,
    fairnessKey: string,
    answer: LeaseAnswer,
  ): void {
    if (!this.serves(queue)) return answer(null)
    let holder = this.#holders.get(queue.name)
    if (holder === undefined) {
      const store = this.#deps.store as LeaseHolderDeps['store']
      holder = new QueueLeaseHolder({ ...this.#deps, store }, queue.name, queue.concurrency)
      this.#holders.set(queue.name, holder)
    }
    holder.acquire(queue.concurrency, priority, fairnessKey, answer)
  }

  /** A lease call is in flight (Driver.quiet). */
  get busy(): boolean {
    for (const holder of this.#holders.values()) if (holder.busy) return true
    return false
  }

  /** Give every lease back (engine close, after its drain). */
  async close(): Promise<void> {
    this.#closed = true
    await Promise.all([...this.#holders.values()].map((holder) => holder.close()))
  }
}
