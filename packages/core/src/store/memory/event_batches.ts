/**
 * The memory store's event accumulators (contracts/event_batches.ts): every accumulator by
 * workflow, key and id, and per workflow and key the one adds join (the newest unclaimed).
 * The rules are store-kit's (event_batch_rules.ts), as in every store.
 */
import type {
  ClaimEventBatchesRequest,
  ClaimedEventBatch,
  ClaimedEventBatches,
  EventBatchAdd,
  EventBatchState,
} from '../../contracts/index.ts'
import { InvalidArgumentError } from '../../errors/index.ts'
import { afterAdd, joinsAccumulator, type AccumulatorTimes } from '../event_batch_rules.ts'
import { compareCodePoints } from './code_point_order.ts'

interface Accumulator {
  workflow: string
  key: string
  id: string
  mode: 'debounce' | 'batch'
  payloads: string[]
  eventIds: string[]
  firstAt: number
  dueAt: number
  /** Set by the first claim: from then on the accumulator takes no add. */
  leaseOwner: string | null
  leaseUntil: number | null
}

const slotOf = (workflow: string, key: string) => JSON.stringify([workflow, key])
const idOf = (workflow: string, key: string, id: string) => JSON.stringify([workflow, key, id])

export class EventBatches {
  readonly #all = new Map<string, Accumulator>()
  /** Per workflow and key, the accumulator adds join (unclaimed), by its full id. */
  readonly #open = new Map<string, string>()

  /** Refuses (before anything changes) an add opening an accumulator under an id in use. */
  checkOpenIds(adds: readonly EventBatchAdd[]): void {
    for (const add of adds) {
      if (this.#joinable(add) !== null) continue
      if (this.#all.has(idOf(add.workflow, add.key, add.openId)))
        throw new InvalidArgumentError(
          `appendEvent: accumulator id ${JSON.stringify(add.openId)} of workflow "${add.workflow}" is in use`,
        )
    }
  }

  add(add: EventBatchAdd, event: { id: string; payload: string }, now: number): EventBatchState {
    const joined = this.#joinable(add)
    const times = afterAdd(add, joined === null ? null : timesOf(joined), now)
    const acc: Accumulator = joined ?? {
      workflow: add.workflow,
      key: add.key,
      id: add.openId,
      mode: add.mode,
      payloads: [],
      eventIds: [],
      firstAt: times.firstAt,
      dueAt: times.dueAt,
      leaseOwner: null,
      leaseUntil: null,
    }
    if (add.mode === 'debounce') {
      acc.payloads = [event.payload]
      acc.eventIds = [event.id]
    } else {
      acc.payloads.push(event.payload)
      acc.eventIds.push(event.id)
    }
    acc.mode = add.mode
    acc.dueAt = times.dueAt
    if (joined === null) {
      const full = idOf(acc.workflow, acc.key, acc.id)
      this.#all.set(full, acc)
      this.#open.set(slotOf(acc.workflow, acc.key), full)
    }
    return {
      workflow: acc.workflow,
      key: acc.key,
      id: acc.id,
      size: acc.payloads.length,
      dueAt: acc.dueAt,
    }
  }

  claim(request: ClaimEventBatchesRequest): ClaimedEventBatches {
    const { now, limit, owner, leaseMs } = request
    const workflows = new Set(request.workflows)
    const due = [...this.#all.values()]
      .filter((acc) => workflows.has(acc.workflow))
      .filter((acc) => acc.dueAt <= now && (acc.leaseUntil === null || acc.leaseUntil <= now))
      .sort((a, b) => a.dueAt - b.dueAt || compareCodePoints(a.id, b.id))
      .slice(0, limit)
    for (const acc of due) {
      acc.leaseOwner = owner
      acc.leaseUntil = now + leaseMs
      const slot = slotOf(acc.workflow, acc.key)
      if (this.#open.get(slot) === idOf(acc.workflow, acc.key, acc.id)) this.#open.delete(slot)
    }
    let nextAt: number | null = null
    for (const acc of this.#all.values()) {
      if (!workflows.has(acc.workflow)) continue
      const at = acc.leaseUntil === null ? acc.dueAt : Math.max(acc.dueAt, acc.leaseUntil)
      if (nextAt === null || at < nextAt) nextAt = at
    }
    return { claimed: due.map(claimed), nextAt }
  }

  delete(workflow: string, key: string, id: string): boolean {
    const full = idOf(workflow, key, id)
    if (!this.#all.delete(full)) return false
    const slot = slotOf(workflow, key)
    if (this.#open.get(slot) === full) this.#open.delete(slot)
    return true
  }

  /** The accumulator `add` joins, or null when it opens one. */
  #joinable(add: EventBatchAdd): Accumulator | null {
    const full = this.#open.get(slotOf(add.workflow, add.key))
    const open = full === undefined ? undefined : this.#all.get(full)
    if (open === undefined) return null
    return joinsAccumulator(add, timesOf(open)) ? open : null
  }
}

function timesOf(acc: Accumulator): AccumulatorTimes {
  return { size: acc.payloads.length, firstAt: acc.firstAt, dueAt: acc.dueAt }
}

function claimed(acc: Accumulator): ClaimedEventBatch {
  return {
    workflow: acc.workflow,
    key: acc.key,
    id: acc.id,
    mode: acc.mode,
    payloads: [...acc.payloads],
    eventIds: [...acc.eventIds],
    firstAt: acc.firstAt,
    dueAt: acc.dueAt,
  }
}
