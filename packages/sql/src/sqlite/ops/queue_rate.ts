/**
 * A queue's rate on SQLite (QueueRequest.rateLimit), inside a grant pass's BEGIN IMMEDIATE.
 * The rule is store-kit's (queue_rate.ts); this file only reads and writes its log: one read
 * of the rows a pass's grants look back at, one row per grant made, one DELETE of the rows the
 * rule no longer needs — each a range of the primary key. A queue without a rate runs none of
 * them (queue_grants.ts asks only when the queue's row has one).
 */
import { prunableGrants, rateAllowance, rateLogRange } from '@cairn/core/store-kit'
import type { QueueRateLimit } from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'

/** The rate as the queue's row stores it (both columns null: none). */
export function storedRate(limit: number | null, periodMs: number | null): QueueRateLimit | null {
  return limit === null || periodMs === null
    ? null
    : { limit: Number(limit), periodMs: Number(periodMs) }
}

/**
 * How many of the next `count` grants of a queue that has made `grants` the rate allows at
 * `now`, and when the first one it stops becomes possible (null: it stops none).
 */
export function rateAllowed(
  s: Statements,
  queue: string,
  grants: number,
  rate: QueueRateLimit,
  count: number,
  now: number,
): { allowed: number; retryAt: number | null } {
  const { from, to } = rateLogRange(grants, rate, count)
  const times = new Map<number, number>()
  if (from <= to) {
    const rows = s.selectGrantLog.all(queue, from, to) as Array<{
      grant_no: number
      granted_at: number
    }>
    for (const row of rows) times.set(Number(row.grant_no), Number(row.granted_at))
  }
  const oldest = () => {
    const row = s.selectOldestGrant.get(queue) as { granted_at: number } | undefined
    return row === undefined ? undefined : Number(row.granted_at)
  }
  return rateAllowance(grants, rate, count, now, (n) => times.get(n), oldest)
}

/** The grant numbered `grantNo` was made at `now` (rated queues only). */
export function logGrant(s: Statements, queue: string, grantNo: number, now: number): void {
  s.logGrant.run(queue, grantNo, now)
}

/** After a pass that granted: forget the logged grants the rate no longer looks back at. */
export function pruneGrantLog(
  s: Statements,
  queue: string,
  grants: number,
  rate: QueueRateLimit,
  now: number,
): void {
  const { below, before } = prunableGrants(grants, rate, now)
  if (below >= 1) s.pruneGrantLog.run(queue, below, before)
}
