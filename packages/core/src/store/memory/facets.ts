/**
 * facetRuns on the memory store: counts over every run matching the filter (status or
 * workflow filter dropped). Scans all runs: the memory store is for tests and small
 * deployments. Synchronous, so both counts see one state.
 */
import type { RunFacetQuery, RunFacets, RunStatus } from '../../contracts/index.ts'
import { MAX_WORKFLOW_FACETS } from '../run_filters.ts'
import { compareCodePoints } from './code_point_order.ts'
import { listFilter } from './queries.ts'
import type { StoreState } from './store_state.ts'

export function facetRuns(store: StoreState, query: RunFacetQuery): RunFacets {
  const statusFilter = listFilter({ ...query, status: undefined })
  const workflowFilter = listFilter({ ...query, workflow: undefined })
  const byStatus: Partial<Record<RunStatus, number>> = {}
  for (const state of store.listing.matching(statusFilter)) {
    byStatus[state.run.status] = (byStatus[state.run.status] ?? 0) + 1
  }
  const perWorkflow = new Map<string, number>()
  for (const state of store.listing.matching(workflowFilter)) {
    perWorkflow.set(state.run.workflow, (perWorkflow.get(state.run.workflow) ?? 0) + 1)
  }
  const byWorkflow = [...perWorkflow]
    .map(([workflow, count]) => ({ workflow, count }))
    .sort((a, b) => b.count - a.count || compareCodePoints(a.workflow, b.workflow))
  return { byStatus, byWorkflow: byWorkflow.slice(0, MAX_WORKFLOW_FACETS) }
}
