/**
 * What `durable:runs --stale` means, in the engine's own terms (RunInfo.claimableAt):
 *
 *   a run is stale when it is open — pending, running or waiting — and became claimable more
 *   than `staleAfterMs` ago without any engine claiming it.
 *
 * For a pending run that is "created (or handed back) and not picked up"; for a waiting run "its
 * timer is due and nobody fired it"; for a running run "its holder stopped renewing its lease
 * (crashed, paused, cut off) and nobody took it over". A live holder renews its lease every
 * leaseMs / 3, so a running run's claimableAt is in the future while the holder lives. Stale
 * runs mean no process drives runs for these workflows, or every driving process is at its
 * concurrency limit. Parked runs are never stale: they wait for an operator (see parkReason).
 *
 * The store has no index on claimableAt, so stale runs are found by reading open runs newest
 * first, page by page, up to MAX_SCANNED of them.
 */
import type { Engine, RunInfo, RunStatus } from '@cairn/core'
import { InvalidArgumentError } from '@cairn/core'

export const OPEN_STATUSES: readonly RunStatus[] = ['pending', 'running', 'waiting']
export const DEFAULT_STALE_AFTER_MS = 60_000
/** Open runs read at most while looking for stale ones. */
export const MAX_SCANNED = 10_000
const PAGE = 1000

export function isStale(run: RunInfo, now: number, staleAfterMs: number): boolean {
  return (
    OPEN_STATUSES.includes(run.status) &&
    run.claimableAt !== null &&
    run.claimableAt.getTime() < now - staleAfterMs
  )
}

export interface StaleQuery {
  workflow?: string
  /** Restricts the open statuses looked at; each must be one of them. */
  status?: readonly RunStatus[]
  limit: number
  staleAfterMs: number
  now: number
}

export interface StaleRuns {
  runs: RunInfo[]
  /** Open runs read. */
  scanned: number
  /** False when the scan stopped at MAX_SCANNED with open runs left unread. */
  complete: boolean
}

export async function findStaleRuns(engine: Engine, query: StaleQuery): Promise<StaleRuns> {
  const status = staleStatuses(query.status)
  checkStaleAfter(query.staleAfterMs)
  const runs: RunInfo[] = []
  let scanned = 0
  let cursor: string | undefined
  do {
    const page = await engine.listRuns({
      status,
      limit: Math.min(PAGE, MAX_SCANNED - scanned),
      ...(query.workflow === undefined ? {} : { workflow: query.workflow }),
      ...(cursor === undefined ? {} : { cursor }),
    })
    scanned += page.runs.length
    for (const run of page.runs) {
      if (isStale(run, query.now, query.staleAfterMs)) runs.push(run)
      if (runs.length === query.limit) return { runs, scanned, complete: true }
    }
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined && scanned < MAX_SCANNED)
  return { runs, scanned, complete: cursor === undefined }
}

function staleStatuses(requested: readonly RunStatus[] | undefined): RunStatus[] {
  if (requested === undefined) return [...OPEN_STATUSES]
  const closed = requested.filter((status) => !OPEN_STATUSES.includes(status))
  if (closed.length > 0) {
    throw new InvalidArgumentError(
      `--stale looks at open runs only (${OPEN_STATUSES.join(', ')}); --status ${closed.join(', ')} cannot be stale`,
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
