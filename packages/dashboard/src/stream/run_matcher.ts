/**
 * Whether a run matches a dashboard filter, evaluated here (for runs an engine event names)
 * with the store's semantics: search attribute terms through core's own matcher.
 */
import { type ListRunsQuery, type RunInfo } from '@cairn/core'
import { isTerminalStatus, parseSearchFilter, termMatches } from '@cairn/core/store-kit'

/** What an engine event tells of its run; enough to rule most runs out without a read. */
export interface RunKey {
  workflow: string
  version: string
}

/** False when the run's workflow or version alone rules it out of `query`. */
export function keyMayMatch(key: RunKey, query: ListRunsQuery): boolean {
  return (
    (query.workflow === undefined || key.workflow === query.workflow) &&
    (query.version === undefined || key.version === query.version)
  )
}

/** `query` is the filter's (toListRunsQuery), resolved by the caller at the time of the check. */
export function runMatches(run: RunInfo, query: ListRunsQuery): boolean {
  const created = run.createdAt.getTime()
  const statuses = query.status === undefined ? undefined : [query.status].flat()
  if (statuses !== undefined && !statuses.includes(run.status)) return false
  if (!keyMayMatch(run, query)) return false
  if (query.tag !== undefined && !run.tags.includes(query.tag)) return false
  if (query.idContains !== undefined && !run.id.includes(query.idContains)) return false
  if (query.createdFrom !== undefined && created < query.createdFrom) return false
  if (query.createdBefore !== undefined && created >= query.createdBefore) return false
  if (query.claimableBefore !== undefined && !claimableBefore(run, query.claimableBefore))
    return false
  if (query.admissionKey !== undefined && !openUnderKey(run, query.admissionKey)) return false
  return parseSearchFilter(query.searchAttributes).every((term) =>
    termMatches(run.searchAttributes[term.name], term),
  )
}

/**
 * Open (not ended) and admitted or queued under the key. RunInfo names the key, not its scope:
 * the engine's scope is the workflow name, so the run's workflow stands for it.
 */
function openUnderKey(run: RunInfo, key: { scope: string; key: string }): boolean {
  return run.singletonKey === key.key && run.workflow === key.scope && !isTerminalStatus(run.status)
}

/** Parked and finished runs have no claimableAt: never before any time. */
function claimableBefore(run: RunInfo, time: number): boolean {
  return run.claimableAt !== null && run.claimableAt.getTime() < time
}
