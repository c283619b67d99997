/**
 * Whether a run matches a dashboard filter, evaluated here (for runs an engine event names)
 * with the store's semantics: search attribute terms through core's own matcher.
 */
import { parseSearchFilter, termMatches, type RunInfo } from '@cairn/core'
import { toListRunsQuery, type RunFilter } from '../api/run_filter.ts'

export function runMatches(run: RunInfo, filter: RunFilter): boolean {
  const query = toListRunsQuery(filter)
  const created = run.createdAt.getTime()
  if (filter.status !== undefined && !filter.status.includes(run.status)) return false
  if (query.workflow !== undefined && run.workflow !== query.workflow) return false
  if (query.version !== undefined && run.version !== query.version) return false
  if (query.tag !== undefined && !run.tags.includes(query.tag)) return false
  if (query.idContains !== undefined && !run.id.includes(query.idContains)) return false
  if (query.createdFrom !== undefined && created < query.createdFrom) return false
  if (query.createdBefore !== undefined && created >= query.createdBefore) return false
  return parseSearchFilter(query.searchAttributes).every((term) =>
    termMatches(run.searchAttributes[term.name], term),
  )
}
