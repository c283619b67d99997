/**
 * Schedules on SQLite, each write inside one BEGIN IMMEDIATE (the writer is alone: what a
 * claim reads cannot change before it leases). Arguments are checked by the caller
 * (sqlite_store_base.ts) before anything runs.
 */
import type {
  ClaimedSchedules,
  ClaimSchedulesRequest,
  ScheduleAdvance,
  ScheduleAdvanceResult,
  ScheduleListQuery,
  SchedulePut,
  ScheduleRecord,
} from '@cairn/core/contracts'
import { toSafeIntegerOrNull } from '../../shared/integers.ts'
import { toSchedule } from '../../shared/schedule_rows.ts'
import type { Statements } from '../statements.ts'

export function putSchedule(s: Statements, put: SchedulePut): ScheduleRecord | null {
  const replacesWindow = put.lastWindow === undefined ? 0 : 1
  if (put.ifRevision !== undefined) {
    const row = s.putScheduleIf.get(
      put.workflow,
      put.version,
      put.spec,
      put.paused ? 1 : 0,
      put.nextAt,
      replacesWindow,
      put.lastWindow ?? null,
      replacesWindow,
      put.now,
      put.id,
      put.ifRevision,
    ) as unknown as unknown[] | undefined
    return row === undefined ? null : toSchedule(row)
  }
  const row = s.putSchedule.get(
    put.id,
    put.workflow,
    put.version,
    put.spec,
    put.paused ? 1 : 0,
    put.nextAt,
    put.lastWindow ?? null,
    put.now,
    put.now,
    replacesWindow,
    replacesWindow,
  ) as unknown as unknown[]
  return toSchedule(row)
}

export function getSchedule(s: Statements, id: string): ScheduleRecord | null {
  const row = s.selectSchedule.get(id) as unknown as unknown[] | undefined
  return row === undefined ? null : toSchedule(row)
}

export function listSchedules(s: Statements, query: ScheduleListQuery): ScheduleRecord[] {
  const rows =
    query.after === undefined
      ? s.listSchedules.all(query.limit)
      : s.listSchedulesAfter.all(query.after, query.limit)
  return (rows as unknown as unknown[][]).map((row) => toSchedule(row))
}

export function deleteSchedule(s: Statements, id: string): boolean {
  return Number(s.deleteSchedule.run(id).changes) > 0
}

export function advanceSchedule(s: Statements, a: ScheduleAdvance): ScheduleAdvanceResult {
  const { changes } = s.advanceSchedule.run(
    a.nextAt,
    a.lastWindow,
    a.lastRunId,
    a.bufferedWindow,
    a.fired,
    a.skipped,
    a.now,
    a.id,
    a.owner,
    a.revision,
  )
  return Number(changes) > 0 ? 'applied' : 'stale'
}

/**
 * The earliest next_at of the unpaused schedules of `workflows` other than `except` (one
 * read; null when there is none).
 */
export function nextScheduleAt(
  s: Statements,
  workflows: readonly string[],
  except: readonly string[] = [],
): number | null {
  const row = s.nextScheduleAt.get(JSON.stringify(workflows), JSON.stringify(except)) as
    unknown[] | undefined
  return toSafeIntegerOrNull(row?.[0] ?? null, 'next_at')
}

/** The claim, in the caller's transaction: read the due ones in claim order, lease them. */
export function claimSchedules(s: Statements, request: ClaimSchedulesRequest): ClaimedSchedules {
  const { now, limit, owner, leaseMs, workflows } = request
  const rows = s.dueSchedules.all(now, now, JSON.stringify(workflows), limit)
  const due = (rows as unknown as unknown[][]).map((row) => toSchedule(row))
  if (due.length === 0) return { claimed: [], nextAt: nextScheduleAt(s, workflows) }
  const leaseUntil = now + leaseMs
  const ids = due.map((schedule) => schedule.id)
  s.leaseSchedules.run(owner, leaseUntil, JSON.stringify(ids))
  return {
    claimed: due.map((schedule) => ({ ...schedule, leaseOwner: owner, leaseUntil })),
    nextAt: nextScheduleAt(s, workflows, ids),
  }
}
