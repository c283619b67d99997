/**
 * Retention on the memory store (contracts/retention.ts): pages and cutoffs walk the finish
 * index (finish_index.ts) as the SQL stores walk theirs; a deletion plans with the shared
 * planner (run_tree_plan.ts) over the store's maps, then forgets the runs it takes.
 */
import type {
  DeleteRunTreesRequest,
  DeleteRunTreesResult,
  ExpiredRunsQuery,
  FinishedPosition,
  RetentionCutoffQuery,
  RunStatus,
  TerminalStatus,
} from '../../contracts/index.ts'
import { compareFinished } from '../retention_rules.ts'
import { isTerminalStatus } from '../run_statuses.ts'
import { planTreeDeletion, readForestSync, type TreeRun } from '../run_tree_plan.ts'
import type { RunState } from './run_state.ts'
import type { StoreState } from './store_state.ts'

const DONE_WITH_CHILDREN: ReadonlySet<RunStatus> = new Set(['completed', 'cancelled', 'continued'])

export function retentionCutoff(
  store: StoreState,
  query: RetentionCutoffQuery,
): FinishedPosition | null {
  // The newest `keepNewest` of each status, merged: the last of the merged ones is the cutoff.
  const newest: FinishedPosition[] = []
  for (const status of query.statuses) {
    let taken = 0
    for (const { state, at } of store.finished.newest(status)) {
      if (taken === query.keepNewest) break
      if (query.workflow !== undefined && state.run.workflow !== query.workflow) continue
      newest.push(at)
      taken++
    }
  }
  return newest.sort((a, b) => compareFinished(b, a))[query.keepNewest - 1] ?? null
}

export function expiredRuns(store: StoreState, query: ExpiredRunsQuery): FinishedPosition[] {
  const found: FinishedPosition[] = []
  for (const status of query.statuses) found.push(...expiredOf(store, status, query))
  return found.sort(compareFinished).slice(0, query.limit)
}

export function deleteRunTrees(
  store: StoreState,
  request: DeleteRunTreesRequest,
): DeleteRunTreesResult {
  const forest = readForestSync(request.runIds, (column, values) =>
    column === 'id'
      ? values.flatMap((id) => treeRunOf(store.runs.get(id)))
      : values.flatMap((id) => [...(store.children.get(id) ?? [])].flatMap(treeRunOf)),
  )
  const plan = planTreeDeletion(request, forest)
  for (const run of plan.doomed) store.deleteRun(store.runs.get(run.id) as RunState)
  return { trees: plan.trees }
}

function expiredOf(
  store: StoreState,
  status: TerminalStatus,
  query: ExpiredRunsQuery,
): FinishedPosition[] {
  const found: FinishedPosition[] = []
  for (const { state, at } of store.finished.from(status, query.after)) {
    if (found.length === query.limit || compareFinished(at, query.before) >= 0) break
    if (query.workflow !== undefined && state.run.workflow !== query.workflow) continue
    if (parentHolds(store, state) || successorOpen(store, state)) continue
    found.push(at)
  }
  return found
}

function parentHolds(store: StoreState, state: RunState): boolean {
  const parentId = state.run.parentRunId
  const parent = parentId === null ? undefined : store.runs.get(parentId)
  return parent !== undefined && !DONE_WITH_CHILDREN.has(parent.run.status)
}

function successorOpen(store: StoreState, state: RunState): boolean {
  const to = state.run.continuedTo
  const successor = to === null ? undefined : store.runs.get(to)
  return successor !== undefined && !isTerminalStatus(successor.run.status)
}

function treeRunOf(state: RunState | undefined): TreeRun[] {
  if (state === undefined) return []
  const { run } = state
  return [
    {
      key: 0,
      id: run.id,
      status: run.status,
      open: !isTerminalStatus(run.status),
      parentRunId: run.parentRunId,
      continuedTo: run.continuedTo,
      finishedAt: run.finishedAt,
      tags: run.tags,
      createdAt: run.createdAt,
    },
  ]
}
