/**
 * What `durable:runs --stale` means, in the engine's own terms (RunInfo.claimableAt):
 *
 *   a run is stale when it is open — pending, running, waiting or blocked — and became claimable more
 *   than `staleAfterMs` ago without any engine claiming it.
 *
 * For a pending run that is "created (or handed back) and not picked up"; for a waiting run "its
 * timer is due and nobody fired it"; for a running run "its holder stopped renewing its lease
 * (crashed, paused, cut off) and nobody took it over". A live holder renews its lease every
 * leaseMs / 3, so a running run's claimableAt is in the future while the holder lives. Stale
 * runs mean no process drives runs for these workflows, or every driving process is at its
 * concurrency limit. Parked runs are never stale: they wait for an operator (see parkReason).
 *
 * The store finds them itself (ListRunsQuery.claimableBefore, on the column its claim index
 * leads with): one query per page, newest first, paged by cursor like any list. The planner
 * may still read the open runs to find them (SQLite sorts the open runs of the status index).
 */
import type { Engine, ListRunsQuery, RunList, RunStatus } from '@cairn/core'
import { InvalidArgumentError } from '@cairn/core'
import { CLAIMABLE_STATUSES } from '@cairn/core/store-kit'

export const DEFAULT_STALE_AFTER_MS = 60_000

export interface StaleQuery {
  workflow?: string
  /** Restricts the open statuses looked at; each must be one of them. */
  status?: readonly RunStatus[]
  limit: number
  /** The next page: a cursor an earlier page printed (its cutoff is resolved again). */
  cursor?: string
  staleAfterMs: number
  now: number
}

/** The store query of `query`'s stale runs; E_INVALID_ARGUMENT for a closed status. */
export function staleRunsQuery(query: StaleQuery): ListRunsQuery {
  checkStaleAfter(query.staleAfterMs)
  return {
    status: staleStatuses(query.status),
    claimableBefore: query.now - query.staleAfterMs,
    limit: query.limit,
    ...(query.workflow === undefined ? {} : { workflow: query.workflow }),
    ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
  }
}

/** A page of stale runs, newest first, and the cursor of the next one (null when none). */
export async function findStaleRuns(engine: Engine, query: StaleQuery): Promise<RunList> {
  return engine.listRuns(staleRunsQuery(query))
}

function staleStatuses(requested: readonly RunStatus[] | undefined): RunStatus[] {
  if (requested === undefined) return [...CLAIMABLE_STATUSES]
  const closed = requested.filter((status) => !CLAIMABLE_STATUSES.includes(status))
  if (closed.length > 0) {
    throw new InvalidArgumentError(
      `--stale looks at open runs only (${CLAIMABLE_STATUSES.join(', ')}); --status ${closed.join(', ')} cannot be stale`,
      { details: { flag: 'status', statuses: closed } },
    )
  }
  return [...requested]
}

function checkStaleAfter(ms: number): void {
  if (!Number.isSafeInteger(ms) || ms < 0) {
    throw new InvalidArgumentError(`--stale-after must be a whole number of ms ≥ 0, got ${ms}`, {
      details: { flag: 'stale-after' },
    })
  }
}
