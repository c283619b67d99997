/**
 * backlog: six aggregates in ONE statement (one snapshot on every dialect), each answered
 * from an index without reading a run row's payload:
 * - pending / waiting / queued: COUNT over the status range of `cairn_runs_status_created`
 *   (covering).
 * - blocked: the stored `waiting` rows that read `blocked` (blocked_status.ts): the same
 *   status range, each row's mark and epoch read (not covering, but only waiting rows).
 * - due timers: COUNT over `available_at <= now` of the claimable index, status checked per
 *   entry; that range holds only claimable work (pending runs, due timers, expired leases).
 * - oldest pending: the first pending entry of the claimable index in `available_at` order —
 *   MIN(available_at) written as ORDER BY … LIMIT 1 so every planner walks the index from its
 *   head (a MIN over the status range would visit every pending row). Plans: HOW_IT_WORKS.md.
 */
import { checkBacklogTime } from '@cairn/core/store-kit'
import type { RunBacklog } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import { toSafeInteger, toSafeIntegerOrNull } from './integers.ts'
import { Params } from './params.ts'
import { blockedSql } from './blocked_status.ts'

/** The statement text; `now` is the only parameter, written by `placeholder`. */
export function backlogSql(runs: string, placeholder: string): string {
  return `SELECT
    (SELECT COUNT(*) FROM ${runs} WHERE status = 'pending') AS pending,
    (SELECT COUNT(*) FROM ${runs} WHERE status = 'waiting') AS waiting,
    (SELECT COUNT(*) FROM ${runs} r WHERE ${blockedSql('r')}) AS blocked,
    (SELECT COUNT(*) FROM ${runs} WHERE status = 'queued') AS queued,
    (SELECT COUNT(*) FROM ${runs} WHERE available_at <= ${placeholder} AND status = 'waiting') AS due_timers,
    (SELECT available_at FROM ${runs} WHERE available_at IS NOT NULL AND status = 'pending'
      ORDER BY available_at LIMIT 1) AS oldest_pending_at`
}

/** The statement's one row, its columns in the order above. */
export function toRunBacklog(row: readonly unknown[] | undefined): RunBacklog {
  const [pending, waiting, blocked, queued, dueTimers, oldest] = row ?? [0, 0, 0, 0, 0, null]
  const blockedCount = toSafeInteger(blocked, 'blocked')
  return {
    pending: toSafeInteger(pending, 'pending'),
    // Stored `waiting` holds the blocked runs too.
    waiting: toSafeInteger(waiting, 'waiting') - blockedCount,
    blocked: blockedCount,
    queued: toSafeInteger(queued, 'queued'),
    dueTimers: toSafeInteger(dueTimers, 'due_timers'),
    oldestPendingAt: toSafeIntegerOrNull(oldest ?? null, 'oldest_pending_at'),
  }
}

export async function backlog(ctx: SqlContext, now: number): Promise<RunBacklog> {
  checkBacklogTime(now)
  const p = new Params(ctx.dialect)
  const text = backlogSql(ctx.tables.runs, p.add(now))
  const { rows } = await ctx.pool.query(p.statement(text))
  return toRunBacklog(rows[0])
}
