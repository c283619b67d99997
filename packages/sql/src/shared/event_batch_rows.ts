/**
 * Accumulator rows ↔ what the shared code works with: the column lists once, in the order
 * they are read (every SQL store, SQLite's arrays too).
 */
import type { ClaimedEventBatch } from '@cairn/core/contracts'
import type { StoredAccumulator } from './event_batch_plan.ts'
import { toSafeInteger } from './integers.ts'

/** An open accumulator as an append reads it, in `toStored`'s order. */
export const STORED_COLUMNS = 'workflow, batch_key, id, mode, size, first_at, due_at'

export function toStored(row: readonly unknown[]): StoredAccumulator {
  return {
    workflow: row[0] as string,
    key: row[1] as string,
    id: row[2] as string,
    mode: row[3] as StoredAccumulator['mode'],
    size: toSafeInteger(row[4], 'size'),
    firstAt: toSafeInteger(row[5], 'first_at'),
    dueAt: toSafeInteger(row[6], 'due_at'),
  }
}

/** A claimed accumulator, in `toClaimed`'s order. */
export const CLAIMED_COLUMNS = 'workflow, batch_key, id, mode, first_at, due_at'

/** A claimed accumulator from its row (CLAIMED_COLUMNS from `offset`), payloads still to read. */
export function toClaimed(row: readonly unknown[], offset = 0): ClaimedEventBatch {
  return {
    workflow: row[offset] as string,
    key: row[offset + 1] as string,
    id: row[offset + 2] as string,
    mode: row[offset + 3] as ClaimedEventBatch['mode'],
    payloads: [],
    eventIds: [],
    firstAt: toSafeInteger(row[offset + 4], 'first_at'),
    dueAt: toSafeInteger(row[offset + 5], 'due_at'),
  }
}
