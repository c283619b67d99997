/** Event log and event wait rows ↔ records: the column lists once, in the order they are read. */
import type { EventRecord, EventWaitRecord } from '@cairn/core/contracts'
import { toSafeInteger } from './integers.ts'

export const EVENT_COLUMNS = 'id, name, payload, published_at'

export const EVENT_WAIT_COLUMNS = 'run_id, seq, name, match_json, started_at'

export function toEventRecord(row: readonly unknown[]): EventRecord {
  return {
    id: row[0] as string,
    name: row[1] as string,
    payload: row[2] as string,
    publishedAt: toSafeInteger(row[3], 'published_at'),
  }
}

export function toEventWaitRecord(row: readonly unknown[]): EventWaitRecord {
  return {
    runId: row[0] as string,
    seq: toSafeInteger(row[1], 'seq'),
    name: row[2] as string,
    match: row[3] as string | null,
    startedAt: toSafeInteger(row[4], 'started_at'),
  }
}
