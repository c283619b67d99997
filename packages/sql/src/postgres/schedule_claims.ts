/**
 * claimDueSchedules in ONE autocommitted statement:
 * - `c` walks the due index (`cairn_schedules_due (next_at, id, workflow) WHERE NOT paused AND
 *   next_at IS NOT NULL`) from its head for schedules of the claimer's workflows that are due
 *   and not under a live lease, locking them FOR UPDATE SKIP LOCKED (rows a put, an advance or
 *   another claim holds are passed over, not waited for; a row changed by a commit after the
 *   statement's snapshot is checked again as it now is); the LIMIT stops the walk, so no row
 *   past it is locked;
 * - `u` leases them by primary key (`id = ANY(ARRAY(…))`: an index lookup per id whatever the
 *   generic plan guesses of the LIMIT, where a join to `c` is planned as a hash join over a
 *   scan of the table), returning them as stored;
 * - `nextAt` comes from the same snapshot: the head of the due index among those workflows'
 *   schedules, leaving out `c`'s through a hashed subplan (leased ones count at their
 *   `next_at`, as the contract says).
 * One row per claimed schedule, in claim order (or one with NULLs), each with `nextAt` first.
 */
import type { ClaimedSchedules, ClaimSchedulesRequest } from '@cairn/core/contracts'
import type { SqlContext } from '../shared/context.ts'
import { toSafeIntegerOrNull } from '../shared/integers.ts'
import { Params } from '../shared/params.ts'
import { scheduleColumnsOf, toSchedule } from '../shared/schedule_rows.ts'
import type { ScheduleClaimWriter } from '../shared/schedules.ts'

export const postgresScheduleClaims: ScheduleClaimWriter = {
  async claim(ctx: SqlContext, request: ClaimSchedulesRequest): Promise<ClaimedSchedules> {
    const { rows } = await ctx.pool.query(scheduleClaimStatement(ctx, request))
    return {
      claimed: rows.filter((row) => row[1] !== null).map((row) => toSchedule(row, 1)),
      nextAt: toSafeIntegerOrNull(rows[0]?.[0] ?? null, 'next_at'),
    }
  },
}

/** The statement (exported for the plan test: schedules.test.ts). */
export function scheduleClaimStatement(ctx: SqlContext, request: ClaimSchedulesRequest) {
  const schedules = ctx.tables.schedules
  const p = new Params(ctx.dialect)
  const now = p.add(request.now, 'bigint')
  const workflows = p.add(request.workflows, 'text[]')
  const text = `WITH c AS MATERIALIZED (
    SELECT id FROM ${schedules}
    WHERE NOT paused AND next_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
      AND workflow = ANY(${workflows})
    ORDER BY next_at, id LIMIT ${p.add(request.limit)} FOR UPDATE SKIP LOCKED
  ), u AS (
    UPDATE ${schedules} s SET lease_owner = ${p.add(request.owner)},
      lease_until = ${p.add(request.now + request.leaseMs, 'bigint')}
    WHERE s.id = ANY(ARRAY(SELECT id FROM c))
    RETURNING ${scheduleColumnsOf('s')}
  )
  SELECT
    (SELECT x.next_at FROM ${schedules} x
      WHERE NOT x.paused AND x.next_at IS NOT NULL AND x.workflow = ANY(${workflows})
        AND x.id NOT IN (SELECT id FROM c)
      ORDER BY x.next_at LIMIT 1),
    ${scheduleColumnsOf('u')}
  FROM (VALUES (0)) AS one(n) LEFT JOIN u ON true
  ORDER BY u.next_at, u.id`
  return p.statement(text, true)
}
