/**
 * `cairn runs --stuck <minutes>`: open runs (pending, running, waiting, blocked) an engine could have
 * claimed more than that long ago and none did — a pending run nobody picked up, a due timer
 * nobody fired, a lease its holder stopped renewing — as the dashboard's Stuck filter and
 * `node ace durable:runs --stale` mean it, through the store's `claimableBefore` filter.
 */
import { type ListRunsQuery, type RunStatus } from '@cairn/core'
import { CLAIMABLE_STATUSES as OPEN } from '@cairn/core/store-kit'
import { integerOf } from './options.ts'
import { UsageError } from './usage_error.ts'

/** A year: any longer is a typo, and keeps `now − minutes` a safe integer. */
const MAX_MINUTES = 525_600

/** The query fields `--stuck` adds (none without it); `statuses` must be open ones. */
export function stuckQuery(
  minutes: string | undefined,
  statuses: readonly RunStatus[] | undefined,
  now: number,
): Pick<ListRunsQuery, 'status' | 'claimableBefore'> {
  if (minutes === undefined) return statuses === undefined ? {} : { status: [...statuses] }
  const stuckFor = integerOf('stuck', minutes, { min: 0, max: MAX_MINUTES, fallback: 0 })
  const closed = statuses?.filter((status) => !OPEN.includes(status)) ?? []
  if (closed.length > 0)
    throw new UsageError(
      `--stuck lists open runs: --status ${closed[0]} is not one of ${OPEN.join(', ')}`,
    )
  return { status: [...(statuses ?? OPEN)], claimableBefore: now - stuckFor * 60_000 }
}
