/**
 * Schedule rows ↔ ScheduleRecord: the column list once, in the order `toSchedule` reads it
 * (every SQL store, SQLite's array rows too). Integers come back as numbers however the driver
 * hands them over (integers.ts); `paused` as a boolean (Postgres BOOLEAN, 0/1 elsewhere).
 */
import { StoreFailureError } from '@cairn/core'
import type { ScheduleRecord } from '@cairn/core/contracts'
import { toSafeInteger, toSafeIntegerOrNull } from './integers.ts'

/** Every column of a schedule, in `toSchedule`'s order. */
export const SCHEDULE_COLUMNS =
  'id, workflow, version, spec, paused, next_at, last_window, last_run_id, buffered_window, ' +
  'fired, skipped, revision, created_at, updated_at, lease_owner, lease_until'

/** The same, each qualified by `alias` (a statement joining the table to another). */
export function scheduleColumnsOf(alias: string): string {
  return SCHEDULE_COLUMNS.split(', ')
    .map((column) => `${alias}.${column}`)
    .join(', ')
}

/** A schedule from its row (SCHEDULE_COLUMNS from `offset`). */
export function toSchedule(row: readonly unknown[], offset = 0): ScheduleRecord {
  const at = (i: number) => row[offset + i]
  return {
    id: at(0) as string,
    workflow: at(1) as string,
    version: (at(2) ?? null) as string | null,
    spec: at(3) as string,
    paused: toBoolean(at(4), 'paused'),
    nextAt: toSafeIntegerOrNull(at(5), 'next_at'),
    lastWindow: toSafeIntegerOrNull(at(6), 'last_window'),
    lastRunId: (at(7) ?? null) as string | null,
    bufferedWindow: toSafeIntegerOrNull(at(8), 'buffered_window'),
    fired: toSafeInteger(at(9), 'fired'),
    skipped: toSafeInteger(at(10), 'skipped'),
    revision: toSafeInteger(at(11), 'revision'),
    createdAt: toSafeInteger(at(12), 'created_at'),
    updatedAt: toSafeInteger(at(13), 'updated_at'),
    leaseOwner: (at(14) ?? null) as string | null,
    leaseUntil: toSafeIntegerOrNull(at(15), 'lease_until'),
  }
}

/** A stored flag: a boolean (Postgres) or 0/1 (SQLite, MySQL; a string or bigint from some drivers). */
function toBoolean(value: unknown, column: string): boolean {
  if (typeof value === 'boolean') return value
  if (value === 1 || value === 1n || value === '1') return true
  if (value === 0 || value === 0n || value === '0') return false
  throw new StoreFailureError(`the database returned ${String(value)} for ${column}: not a flag`, {
    details: { column, value: String(value) },
  })
}
