/**
 * What an appended event's adds do to its accumulators (StateStore.appendEvent's `batches`),
 * decided from the open accumulators the append read under its lock by the rules every store
 * applies (store-kit: joinsAccumulator, afterAdd, with the event's publish time as now), and
 * the rows that follow. Every SQL store writes this plan (SQLite too), so an add means the
 * same everywhere; the memory store applies the same rules to its maps.
 *
 * Items are numbered 1..size in append order: a batch add appends item `size`; a debounce
 * holds one payload, so its add rewrites item 1 (and drops any later ones, left by a batch
 * spec the debounce replaced).
 */
import type { EventBatchAdd, EventBatchState, EventRecord } from '@cairn/core/contracts'
import { afterAdd, joinsAccumulator, type AccumulatorTimes } from '@cairn/core/store-kit'

/** An accumulator as stored: where it is and what the rules read of it. */
export interface StoredAccumulator extends AccumulatorTimes {
  workflow: string
  key: string
  id: string
  mode: EventBatchAdd['mode']
}

/** An accumulator row to write, and whether it is the open one of its workflow and key. */
export interface AccumulatorWrite extends StoredAccumulator {
  open: boolean
}

/** A payload row: item `itemNo` of accumulator `batchId`. */
export interface ItemWrite {
  workflow: string
  key: string
  batchId: string
  itemNo: number
  eventId: string
  payload: string
}

export interface AddPlan {
  /**
   * Open accumulators rewritten: the joined ones (their new mode, size and due time) and the
   * ones an add passed over (a full batch: it stays, unclaimed, but a new one opens beside it).
   */
  updated: AccumulatorWrite[]
  /** New accumulators, each now the open one of its workflow and key (ids not yet checked). */
  opened: AccumulatorWrite[]
  /** Payload rows, inserted or (a debounce's item 1) replaced. */
  items: ItemWrite[]
  /** Joined debounces that held more than one payload: their items past the first go. */
  trimmed: StoredAccumulator[]
  /** The answer: each add's accumulator after the append, in the order given. */
  states: EventBatchState[]
}

/** One accumulator slot (workflow and key) as a map key. */
export function slotOf(workflow: string, key: string): string {
  return JSON.stringify([workflow, key])
}

/**
 * The plan for `adds` (checked, no two naming one slot) of the newly appended `event`, given
 * the open accumulator of each slot that has one.
 */
export function planAdds(
  adds: readonly EventBatchAdd[],
  event: EventRecord,
  open: ReadonlyMap<string, StoredAccumulator>,
): AddPlan {
  const plan: AddPlan = { updated: [], opened: [], items: [], trimmed: [], states: [] }
  for (const add of adds) {
    const current = open.get(slotOf(add.workflow, add.key)) ?? null
    const joined = joinsAccumulator(add, current) ? current : null
    const times = afterAdd(add, joined, event.publishedAt)
    const id = joined?.id ?? add.openId
    const row = { workflow: add.workflow, key: add.key, id, mode: add.mode, ...times, open: true }
    if (joined !== null) {
      plan.updated.push(row)
      if (add.mode === 'debounce' && joined.size > 1) plan.trimmed.push(joined)
    } else {
      if (current !== null) plan.updated.push({ ...current, open: false })
      plan.opened.push(row)
    }
    plan.items.push({
      workflow: add.workflow,
      key: add.key,
      batchId: id,
      itemNo: add.mode === 'debounce' ? 1 : times.size,
      eventId: event.id,
      payload: event.payload,
    })
    plan.states.push({
      workflow: add.workflow,
      key: add.key,
      id,
      size: times.size,
      dueAt: times.dueAt,
    })
  }
  return plan
}
