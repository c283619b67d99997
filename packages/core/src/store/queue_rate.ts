/**
 * The rate rule every store applies to a queue's grants (QueueRateLimit), written once: a
 * queue keeps the `now` of each grant under its grant number (the queue's grant counter); the
 * grant numbered g is allowed at `now` when the grant numbered g − limit was made at least
 * `periodMs` before. So no interval of `periodMs` holds more than `limit` grants.
 *
 * A grant the log no longer holds (pruned) counts as made when the oldest grant it still holds
 * was: pruning keeps the last `limit` grants and every grant inside the period of the rate in
 * force, so a later rate with a longer period or a larger limit can look back further than
 * the log reaches — it is then told a time no earlier than the real one (stricter, never
 * looser). A log with no row at all (a rate just set: earlier grants were never logged) allows.
 */
import type { QueueRateLimit } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'

/** More grants per interval than this is a mistake (a pass reads up to this many log rows). */
export const MAX_RATE_LIMIT = 100_000
/** 2^31 − 1 ms (about 24.8 days): fits every SQL INTEGER and every timer. */
export const MAX_RATE_PERIOD_MS = 2_147_483_647

/** A rate as a queue request or a queue's options carry it: null, or `{ limit, periodMs }`. */
export function checkRateLimit(value: unknown, where: string): QueueRateLimit | null {
  if (value === null) return null
  if (typeof value !== 'object' || Array.isArray(value))
    throw new InvalidArgumentError(`${where}: rateLimit is null or { limit, periodMs }`)
  const r = value as Record<string, unknown>
  const unknown = Object.keys(r).find((k) => k !== 'limit' && k !== 'periodMs')
  if (unknown !== undefined)
    throw new InvalidArgumentError(`${where}: rateLimit has no "${unknown}" (limit, periodMs)`)
  if (!isInteger(r.limit, 1, MAX_RATE_LIMIT))
    throw new InvalidArgumentError(
      `${where}: rateLimit.limit is an integer 1..${MAX_RATE_LIMIT}, got ${String(r.limit)}`,
    )
  if (!isInteger(r.periodMs, 1, MAX_RATE_PERIOD_MS))
    throw new InvalidArgumentError(
      `${where}: rateLimit.periodMs is an integer 1..${MAX_RATE_PERIOD_MS}, got ${String(r.periodMs)}`,
    )
  return { limit: r.limit, periodMs: r.periodMs }
}

/**
 * The grant numbers whose times decide the next `count` grants of a queue that has made
 * `grants`: g − limit for g = grants + 1 … grants + count (those ≤ 0 need no row). A store
 * reads the log rows of this range (from ≤ to; empty when from > to).
 */
export function rateLogRange(
  grants: number,
  rate: QueueRateLimit,
  count: number,
): { from: number; to: number } {
  const span = Math.min(count, rate.limit)
  return { from: Math.max(1, grants + 1 - rate.limit), to: grants + span - rate.limit }
}

/**
 * How many of the next grants the rate allows at `now`, up to `count`, and when the first
 * one it stops becomes possible (null: it stopped none of the `count`). `timeOf(n)`: the
 * logged time of grant n, undefined when not logged; `oldestLogged()`: the time of the
 * lowest-numbered grant the log holds (undefined: an empty log), asked only when a grant
 * looked back at is missing. A grant beyond `limit` in one pass is always stopped: the grant
 * it looks back at is made by the pass itself, at `now`.
 */
export function rateAllowance(
  grants: number,
  rate: QueueRateLimit,
  count: number,
  now: number,
  timeOf: (grant: number) => number | undefined,
  oldestLogged: () => number | undefined,
): { allowed: number; retryAt: number | null } {
  for (let i = 0; i < count; i += 1) {
    if (i >= rate.limit) return { allowed: i, retryAt: now + rate.periodMs }
    const back = grants + 1 + i - rate.limit
    const at = back >= 1 ? (timeOf(back) ?? oldestLogged()) : undefined
    if (at !== undefined && at > now - rate.periodMs)
      return { allowed: i, retryAt: at + rate.periodMs }
  }
  return { allowed: count, retryAt: null }
}

/**
 * Log rows a queue that has made `grants` may delete at `now`: grant numbers up to `below`
 * whose time is at or before `before` — never one of the last `limit` (a raised limit looks
 * further back) nor one inside the interval (a lowered one does).
 */
export function prunableGrants(
  grants: number,
  rate: QueueRateLimit,
  now: number,
): { below: number; before: number } {
  return { below: grants - rate.limit, before: now - rate.periodMs }
}

/**
 * QueueStats.throttled: waiters the free slots would take now that the rate holds back —
 * min(waiting, free) minus what the rate allows (limit − recent grants).
 */
export function queueThrottled(stats: {
  concurrency: number
  granted: number
  leased: number
  waiting: number
  rateLimit: QueueRateLimit | null
  recentGrants: number
}): number {
  if (stats.rateLimit === null) return 0
  const free = stats.concurrency - stats.granted - stats.leased
  const wanted = Math.min(stats.waiting, Math.max(0, free))
  const allowed = Math.max(0, stats.rateLimit.limit - stats.recentGrants)
  return Math.max(0, wanted - allowed)
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max
}
