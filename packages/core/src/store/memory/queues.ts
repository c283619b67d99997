/**
 * Named queues in the memory store (SaveCheckpointOp.enqueue / release, grantQueueSlots):
 * each queue's items by (runId, seq). Slots in use are counted from the items and their runs
 * at every pass, never kept, so a run that ends frees its slots whoever ends it.
 */
import type {
  QueueLease,
  QueueLeaseRequest,
  QueueRateLimit,
  QueueRequest,
  QueueStats,
  QueueThrottle,
  SlotGrant,
} from '../../contracts/index.ts'
import { QUEUE_SLOT_PREFIX, queueGrantId, queueSlotMessage } from '../queue_check.ts'
import { nextWaiter, type QueueWaiter } from '../queue_grants.ts'
import { leasedSlots } from '../queue_lease.ts'
import { prunableGrants, queueThrottled, rateAllowance } from '../queue_rate.ts'
import { compareCodePoints } from './code_point_order.ts'
import { notify } from './message_ops.ts'
import { isTerminal, type RunState } from './run_state.ts'
import type { StoreState } from './store_state.ts'

interface Item extends QueueWaiter {
  runId: string
  seq: number
  attempt: number
  enqueuedAt: number
  granted: boolean
}

interface Queue {
  name: string
  concurrency: number
  rateLimit: QueueRateLimit | null
  /** Grant number → its `now`, while the queue has a rate (queue_rate.ts). */
  log: Map<number, number>
  /** Enqueue counter: the next item's place in line. */
  nextOrder: number
  /** Grant counter, and each fairness key's number of its last grant. */
  grants: number
  lastGrant: Map<string, number>
  items: Map<string, Item>
  /** Slot leases by owner (leaseQueueSlots); an expired one holds nothing. */
  leases: Map<string, { slots: number; expiresAt: number }>
}

const WAITER_STATUSES = new Set(['pending', 'running', 'waiting', 'blocked'])

export class QueueIndex {
  readonly #queues = new Map<string, Queue>()

  /**
   * Store (or keep) the item of `runId`/`seq` and grant: whether the item holds a slot after
   * this (granted now, with no message: the enqueuing op's result says so; or before), and
   * the grants made to others.
   */
  enqueue(
    store: StoreState,
    runId: string,
    seq: number,
    request: QueueRequest,
    now: number,
  ): Grants {
    const queue = this.#queueFor(request.queue)
    queue.concurrency = request.concurrency
    queue.rateLimit = request.rateLimit
    const id = itemId(runId, seq)
    const existing = queue.items.get(id)
    if (existing === undefined || existing.attempt !== request.attempt) {
      queue.items.set(id, {
        runId,
        seq,
        attempt: request.attempt,
        priority: request.priority,
        fairnessKey: request.fairnessKey,
        order: queue.nextOrder++,
        enqueuedAt: now,
        granted: false,
      })
    }
    const grants = this.#grant(store, queue, now, id)
    grants.own = queue.items.get(id)?.granted === true
    return grants
  }

  /** Delete the item of `runId`/`seq` in `name` (if any) and grant. */
  release(store: StoreState, name: string, runId: string, seq: number, now: number): Grants {
    const queue = this.#queues.get(name)
    if (queue === undefined) return noGrants()
    queue.items.delete(itemId(runId, seq))
    return this.#grant(store, queue, now)
  }

  /** Delete every item of `runId` in `names` (every queue: null) and grant those queues. */
  releaseRun(
    store: StoreState,
    runId: string,
    names: readonly string[] | null,
    now: number,
  ): Grants {
    const all = noGrants()
    for (const [name, queue] of this.#queues) {
      if (names !== null && !names.includes(name)) continue
      let had = false
      for (const [id, item] of queue.items) {
        if (item.runId !== runId) continue
        queue.items.delete(id)
        had = true
      }
      if (!had && names === null) continue
      const made = this.#grant(store, queue, now)
      all.woke ||= made.woke
      all.others.push(...made.others)
      all.throttled.push(...made.throttled)
    }
    return all
  }

  /**
   * Forget every item of `runId` (no grant pass: a failed or parked run's items held no
   * slot), its unconsumed grant messages, and every grant's dedupe id — consumed ones too: its
   * replay asks for its slots again under the same attempts, and their grants must arrive.
   */
  forgetRun(state: RunState): void {
    const runId = state.run.id
    for (const queue of this.#queues.values())
      for (const [id, item] of queue.items) if (item.runId === runId) queue.items.delete(id)
    if (state.inbox.some((m) => m.name.startsWith(QUEUE_SLOT_PREFIX)))
      state.inbox = state.inbox.filter((m) => !m.name.startsWith(QUEUE_SLOT_PREFIX))
    for (const dedupeId of state.dedupeIds.keys())
      if (dedupeId.startsWith(QUEUE_SLOT_PREFIX)) state.dedupeIds.delete(dedupeId)
  }

  grantQueues(store: StoreState, names: readonly string[], now: number): Grants {
    const all = noGrants()
    for (const name of new Set(names)) {
      const queue = this.#queues.get(name)
      if (queue === undefined) continue
      const made = this.#grant(store, queue, now)
      all.others.push(...made.others)
      all.throttled.push(...made.throttled)
    }
    return all
  }

  /** StateStore.leaseQueueSlots (the request checked): the owner's slots after the call. */
  lease(store: StoreState, request: QueueLeaseRequest, now: number): QueueLease {
    const queue = this.#queueFor(request.queue)
    queue.concurrency = request.concurrency
    for (const [owner, lease] of queue.leases)
      if (lease.expiresAt <= now) queue.leases.delete(owner)
    const { held: granted, waiters } = this.#scan(store, queue)
    const mine = queue.leases.get(request.owner)?.slots ?? 0
    const counts = {
      concurrency: queue.concurrency,
      granted,
      othersLeased: leasedAt(queue, now) - mine,
      mine,
      waiting: waiters.length,
    }
    const held = leasedSlots(request, counts)
    const expiresAt = now + request.leaseMs
    if (held > 0) queue.leases.set(request.owner, { slots: held, expiresAt })
    else queue.leases.delete(request.owner)
    return { held, expiresAt, waiting: waiters.length }
  }

  stats(store: StoreState, names: readonly string[], now: number): QueueStats[] {
    const stats: QueueStats[] = []
    for (const name of [...new Set(names)].sort(compareCodePoints)) {
      const queue = this.#queues.get(name)
      if (queue === undefined) continue
      const { held, waiters } = this.#scan(store, queue)
      const oldest = waiters.reduce<number | null>(
        (min, w) => (min === null || w.enqueuedAt < min ? w.enqueuedAt : min),
        null,
      )
      const rate = queue.rateLimit
      let recentGrants = 0
      if (rate !== null)
        for (const at of queue.log.values()) if (at > now - rate.periodMs) recentGrants++
      const counts = {
        concurrency: queue.concurrency,
        granted: held,
        leased: leasedAt(queue, now),
        waiting: waiters.length,
        rateLimit: rate,
        recentGrants,
      }
      stats.push({
        queue: name,
        ...counts,
        oldestWaitingSince: oldest,
        throttled: queueThrottled(counts),
      })
    }
    return stats
  }

  /** Grant into the free slots; `own`: the enqueuing item (granted without a message). */
  #grant(store: StoreState, queue: Queue, now: number, own?: string): Grants {
    const grants = noGrants()
    const before = queue.grants
    const { held, waiters } = this.#scan(store, queue)
    const line = new Set(waiters)
    for (let free = queue.concurrency - held - leasedAt(queue, now); free > 0; free--) {
      const next = nextWaiter(line, (key) => queue.lastGrant.get(key) ?? 0)
      if (next === undefined) break
      const retryAt = this.#rateStops(queue, now)
      if (retryAt !== null) {
        grants.throttled.push({ queue: queue.name, retryAt })
        break
      }
      line.delete(next)
      next.granted = true
      queue.grants += 1
      if (queue.rateLimit !== null) queue.log.set(queue.grants, now)
      queue.lastGrant.set(next.fairnessKey, queue.grants)
      // The enqueuing item learns of its grant from its op's result (no message).
      if (itemId(next.runId, next.seq) === own) continue
      const seq = deliverGrant(store, next, now)
      if (seq !== undefined) {
        grants.woke ||= claimableNow(store, next.runId, now)
        grants.others.push({
          runId: next.runId,
          seq: next.seq,
          attempt: next.attempt,
          inboxSeq: seq,
        })
      }
    }
    // After a pass that granted only, as the SQL stores do (a pass granting nothing logs nothing).
    if (queue.grants > before) this.#prune(queue, now)
    return grants
  }

  /** When the queue's rate stops its next grant at `now`: the time it is possible; null: it does not. */
  #rateStops(queue: Queue, now: number): number | null {
    if (queue.rateLimit === null) return null
    const oldest = (): number | undefined => {
      let lowest: number | undefined
      for (const n of queue.log.keys()) if (lowest === undefined || n < lowest) lowest = n
      return lowest === undefined ? undefined : queue.log.get(lowest)
    }
    return rateAllowance(queue.grants, queue.rateLimit, 1, now, (n) => queue.log.get(n), oldest)
      .retryAt
  }

  /** Forgets logged grants the rate no longer looks back at (queue_rate.ts prunableGrants). */
  #prune(queue: Queue, now: number): void {
    if (queue.rateLimit === null) return
    const { below, before } = prunableGrants(queue.grants, queue.rateLimit, now)
    for (const [n, at] of queue.log) if (n <= below && at <= before) queue.log.delete(n)
  }

  /** Slots in use and waiters; items of runs gone or ended are dropped on the way. */
  #scan(store: StoreState, queue: Queue): { held: number; waiters: Item[] } {
    let held = 0
    const waiters: Item[] = []
    for (const [id, item] of queue.items) {
      const state = store.runs.get(item.runId)
      if (state === undefined || isTerminal(state.run.status)) queue.items.delete(id)
      // A parked run holds nothing and waits for nothing (its unpark drops its items).
      else if (!WAITER_STATUSES.has(state.run.status)) continue
      else if (item.granted) held += 1
      else waiters.push(item)
    }
    return { held, waiters }
  }

  #queueFor(name: string): Queue {
    let queue = this.#queues.get(name)
    if (queue === undefined) {
      queue = {
        name,
        concurrency: 1,
        rateLimit: null,
        log: new Map(),
        nextOrder: 1,
        grants: 0,
        lastGrant: new Map(),
        items: new Map(),
        leases: new Map(),
      }
      this.#queues.set(name, queue)
    }
    return queue
  }
}

/** What a grant pass did. */
export interface Grants {
  /** The enqueuing item holds a slot (set by enqueue). */
  own: boolean
  /** A grant made another run claimable (it was waiting for it). */
  woke: boolean
  /** The grants made to other items than `own` (OpResult.grants). */
  others: SlotGrant[]
  /** Passes the rate stopped (OpResult.throttled). */
  throttled: QueueThrottle[]
}

function noGrants(): Grants {
  return { own: false, woke: false, others: [], throttled: [] }
}

/** The fields a grant pass adds to an applied op's result. */
export function grantFields(grants: Grants): {
  promoted?: true
  grants?: SlotGrant[]
  throttled?: QueueThrottle[]
} {
  return {
    ...(grants.woke ? { promoted: true as const } : {}),
    ...(grants.others.length === 0 ? {} : { grants: grants.others }),
    ...(grants.throttled.length === 0 ? {} : { throttled: grants.throttled }),
  }
}

function claimableNow(store: StoreState, runId: string, now: number): boolean {
  const run = store.runs.get(runId)?.run
  if (run === undefined || (run.status !== 'waiting' && run.status !== 'blocked')) return false
  return run.availableAt !== null && run.availableAt <= now
}

function deliverGrant(store: StoreState, item: Item, now: number): number | undefined {
  const message = {
    runId: item.runId,
    kind: 'signal' as const,
    name: queueSlotMessage(item.seq),
    dedupeId: queueGrantId(item.seq, item.attempt),
    payload: 'null',
  }
  notify(store, message, now)
  return store.runs.get(item.runId)?.dedupeIds.get(message.dedupeId)
}

/** Consume the run's unconsumed grant messages of position `seq` (its attempt is over). */
export function consumeGrants(state: RunState, seq: number): void {
  const name = queueSlotMessage(seq)
  if (state.inbox.some((m) => m.name === name))
    state.inbox = state.inbox.filter((m) => m.name !== name)
}

/** Slots of the queue's leases unexpired at `now`. */
function leasedAt(queue: Queue, now: number): number {
  let slots = 0
  for (const lease of queue.leases.values()) if (lease.expiresAt > now) slots += lease.slots
  return slots
}

function itemId(runId: string, seq: number): string {
  return `${seq}\u0000${runId}`
}
