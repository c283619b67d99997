/**
 * Schedules' statements on SQLite (ops/schedules.ts). Every write runs inside one BEGIN
 * IMMEDIATE, so the writer is alone: a claim reads the due schedules, then leases them, with
 * no lock of its own. Rows are read as arrays (SCHEDULE_COLUMNS, shared/schedule_rows.ts).
 */
import { SCHEDULE_COLUMNS } from '../shared/schedule_rows.ts'

/** Ids or workflow names, bound as one JSON array: one statement text for any count. */
const LIST = '(SELECT value FROM json_each(?))'

export const SCHEDULE_SQL = {
  // id, workflow, version, spec, paused (1/0), next_at, last_window, now, now, then whether
  // the put replaces last_window (1/0), twice: a create, or the stored one replaced (revision
  // + 1, lease dropped; counters, last_run_id and created_at kept). Unqualified columns in DO
  // UPDATE are the stored row's.
  putSchedule: `INSERT INTO cairn_schedules (id, workflow, version, spec, paused, next_at,
      last_window, last_run_id, buffered_window, fired, skipped, revision, created_at, updated_at,
      lease_owner, lease_until)
    VALUES (?, ?, ?, ?, ?, ?, ?, NULL, NULL, 0, 0, 1, ?, ?, NULL, NULL)
    ON CONFLICT (id) DO UPDATE SET workflow = excluded.workflow, version = excluded.version,
      spec = excluded.spec, paused = excluded.paused, next_at = excluded.next_at,
      last_window = CASE WHEN ? THEN excluded.last_window ELSE last_window END,
      buffered_window = CASE WHEN ? THEN NULL ELSE buffered_window END,
      revision = revision + 1, updated_at = excluded.updated_at,
      lease_owner = NULL, lease_until = NULL
    RETURNING ${SCHEDULE_COLUMNS}`,
  // workflow, version, spec, paused (1/0), next_at, whether the put replaces last_window (1/0),
  // last_window, whether again, now, id, the revision it must still have: a put with
  // ifRevision replaces the stored schedule only at that revision, and creates nothing.
  putScheduleIf: `UPDATE cairn_schedules SET workflow = ?, version = ?, spec = ?, paused = ?,
      next_at = ?, last_window = CASE WHEN ? THEN ? ELSE last_window END,
      buffered_window = CASE WHEN ? THEN NULL ELSE buffered_window END,
      revision = revision + 1, updated_at = ?, lease_owner = NULL, lease_until = NULL
    WHERE id = ? AND revision = ?
    RETURNING ${SCHEDULE_COLUMNS}`,
  // id.
  selectSchedule: `SELECT ${SCHEDULE_COLUMNS} FROM cairn_schedules WHERE id = ?`,
  // limit / after, limit: by id (BINARY collation: UTF-8 bytes, i.e. code points).
  listSchedules: `SELECT ${SCHEDULE_COLUMNS} FROM cairn_schedules ORDER BY id LIMIT ?`,
  listSchedulesAfter: `SELECT ${SCHEDULE_COLUMNS} FROM cairn_schedules WHERE id > ?
    ORDER BY id LIMIT ?`,
  // id.
  deleteSchedule: `DELETE FROM cairn_schedules WHERE id = ?`,
  // next_at, last_window, last_run_id, buffered_window, fired, skipped, now, id, owner,
  // revision: applied only for the lease holder at that revision (`changes` tells).
  advanceSchedule: `UPDATE cairn_schedules SET next_at = ?, last_window = ?, last_run_id = ?,
      buffered_window = ?, fired = fired + ?, skipped = skipped + ?, updated_at = ?,
      lease_owner = NULL, lease_until = NULL
    WHERE id = ? AND lease_owner = ? AND revision = ?`,
  // now, now, workflows (a JSON array), limit: the due schedules of those workflows not under
  // a live lease, in claim order, through the partial due index (`NOT paused` and `next_at <=
  // ?` imply its WHERE; forced, so a plan that stops using it fails loudly).
  dueSchedules: `SELECT ${SCHEDULE_COLUMNS} FROM cairn_schedules INDEXED BY cairn_schedules_due
    WHERE NOT paused AND next_at <= ? AND (lease_until IS NULL OR lease_until <= ?)
      AND workflow IN ${LIST}
    ORDER BY next_at, id LIMIT ?`,
  // owner, lease end, ids (a JSON array).
  leaseSchedules: `UPDATE cairn_schedules SET lease_owner = ?, lease_until = ?
    WHERE id IN ${LIST}`,
  // workflows, ids (JSON arrays): the earliest next_at of those workflows' unpaused schedules
  // other than these (leased ones included): the head of the due index.
  nextScheduleAt: `SELECT next_at FROM cairn_schedules INDEXED BY cairn_schedules_due
    WHERE NOT paused AND next_at IS NOT NULL AND workflow IN ${LIST} AND id NOT IN ${LIST}
    ORDER BY next_at LIMIT 1`,
} as const

/** The statements whose rows are read as arrays. */
export const SCHEDULE_ARRAY_ROWS = [
  'putSchedule',
  'putScheduleIf',
  'selectSchedule',
  'listSchedules',
  'listSchedulesAfter',
  'dueSchedules',
  'nextScheduleAt',
] as const
