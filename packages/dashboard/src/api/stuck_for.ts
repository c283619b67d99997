/**
 * The `stuckFor` filter key: open runs an engine could have claimed more than N minutes ago.
 * The cutoff is resolved on the server, from the engine's clock (the one `available_at` is
 * written with), each time a query runs: a browser's skewed clock cannot shift it, and a link
 * or a next page means "stuck for N minutes now", not a time frozen when the link was made.
 */
import { type ListRunsQuery, type RunStatus } from '@cairn/core'
import { CLAIMABLE_STATUSES } from '@cairn/core/store-kit'
import { badRequest } from '../http/http_error.ts'

/** A year of minutes: anything longer is a typo, not a stuck run. */
export const MAX_STUCK_MINUTES = 525_600

interface StuckFilterPart {
  stuckFor?: string[]
  claimableBefore?: string[]
  status?: string[]
}

/** Refuses a `stuckFor` that is not 0..MAX minutes, or that contradicts other keys. */
export function checkStuckFor(filter: StuckFilterPart): void {
  const text = filter.stuckFor?.[0]
  if (text === undefined) return
  if (!/^\d{1,6}$/.test(text) || Number(text) > MAX_STUCK_MINUTES)
    throw badRequest(`stuckFor must be whole minutes, 0..${MAX_STUCK_MINUTES}`)
  if (filter.claimableBefore !== undefined)
    throw badRequest('stuckFor and claimableBefore cannot be combined: stuckFor sets the cutoff')
  const notClaimable = (filter.status ?? []).filter(
    (status) => !CLAIMABLE_STATUSES.includes(status as RunStatus),
  )
  if (notClaimable.length > 0)
    throw badRequest(
      `stuckFor only applies to ${CLAIMABLE_STATUSES.join(', ')}; not to ${notClaimable.join(', ')}`,
    )
}

/** Sets the query's cutoff (and, without statuses, the claimable ones) as of `now` (ms). */
export function applyStuckFor(
  query: ListRunsQuery,
  stuckFor: readonly string[] | undefined,
  now: number,
): void {
  if (stuckFor === undefined) return
  query.claimableBefore = now - Number(stuckFor[0]) * 60_000
  query.status ??= [...CLAIMABLE_STATUSES]
}
