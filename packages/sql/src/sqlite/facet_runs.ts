/**
 * facetRuns on SQLite: two grouped counts with listRuns' conditions (list_runs.ts runFilter),
 * one ignoring the status filter, one the workflow filter; statements cached by filter shape.
 * Both run in one synchronous call, so this process's own writes cannot fall between them;
 * another process's commit can (each statement is its own read transaction), as the
 * contract allows.
 */
import { MAX_WORKFLOW_FACETS } from '@cairn/core/store-kit'
import type { RunFacetQuery, RunFacets, RunStatus } from '@cairn/core/contracts'
import { splitBlockedCount } from '../shared/blocked_status.ts'
import { filterConditions, runFilter, shapeKey, type RunFilter } from './list_runs.ts'
import type { StatementCache } from './statement_cache.ts'

export function facetRuns(cache: StatementCache, query: RunFacetQuery): RunFacets {
  const statusFilter = runFilter({ ...query, status: undefined })
  const workflowFilter = runFilter({ ...query, workflow: undefined })
  return {
    byStatus: statusFilter === null ? {} : countByStatus(cache, statusFilter, query),
    byWorkflow: workflowFilter === null ? [] : countByWorkflow(cache, workflowFilter),
  }
}

function countByStatus(
  cache: StatementCache,
  filter: RunFilter,
  query: RunFacetQuery,
): RunFacets['byStatus'] {
  const sql = () => `SELECT status, COUNT(*) FROM cairn_runs ${whereSql(filter)} GROUP BY status`
  const rows = cache
    .get(`facet-status:${shapeKey(filter.shape)}`, sql, true)
    .all(...filter.params) as unknown as [RunStatus, number][]
  const counts: RunFacets['byStatus'] = Object.fromEntries(rows)
  // Blocked runs are stored `waiting` (blocked_status.ts): counted apart, among those only.
  if (counts.waiting === undefined) return counts
  const blocked = runFilter({ ...query, status: 'blocked' })
  return blocked === null ? counts : splitBlockedCount(counts, countRuns(cache, blocked))
}

function countRuns(cache: StatementCache, filter: RunFilter): number {
  const sql = () => `SELECT COUNT(*) FROM cairn_runs ${whereSql(filter)}`
  const row = cache.get(`count:${shapeKey(filter.shape)}`, sql, true).get(...filter.params) as
    [number] | undefined
  return row?.[0] ?? 0
}

function countByWorkflow(cache: StatementCache, filter: RunFilter): RunFacets['byWorkflow'] {
  // Ties by name in code point order: SQLite's default BINARY collation compares UTF-8 bytes.
  const sql = () =>
    `SELECT workflow, COUNT(*) AS n FROM cairn_runs ${whereSql(filter)}
     GROUP BY workflow ORDER BY n DESC, workflow LIMIT ${MAX_WORKFLOW_FACETS}`
  const rows = cache
    .get(`facet-workflow:${shapeKey(filter.shape)}`, sql, true)
    .all(...filter.params) as unknown as [string, number][]
  return rows.map(([workflow, count]) => ({ workflow, count }))
}

function whereSql(filter: RunFilter): string {
  const where = filterConditions(filter.shape)
  return where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''
}
