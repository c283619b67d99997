/**
 * Retention on the memory store (contracts/retention.ts): scans, as the store is for tests and
 * small deployments; the rules are the SQL stores' (store/retention_rules.ts).
 */
import type {
  DeleteRunTreesRequest,
  DeleteRunTreesResult,
  ExpiredRunsQuery,
  FinishedPosition,
  RetentionCutoffQuery,
  RunTreeBlocker,
  RunTreeDeletion,
} from '../../contracts/index.ts'
import { compareFinished } from '../retention_rules.ts'
import { isTerminalStatus } from '../run_statuses.ts'
import type { RunState } from './run_state.ts'
import type { StoreState } from './store_state.ts'

export function retentionCutoff(
  store: StoreState,
  query: RetentionCutoffQuery,
): FinishedPosition | null {
  const newestFirst = inScope(store, query).sort((a, b) => compareFinished(b, a))
  return newestFirst[query.keepNewest - 1] ?? null
}

export function expiredRuns(store: StoreState, query: ExpiredRunsQuery): FinishedPosition[] {
  const { before, after } = query
  return inScope(store, query)
    .filter((p) => compareFinished(p, before) < 0)
    .filter((p) => after === undefined || compareFinished(p, after) > 0)
    .filter((p) => !parentOpen(store, store.runs.get(p.runId) as RunState))
    .sort(compareFinished)
    .slice(0, query.limit)
}

export function deleteRunTrees(
  store: StoreState,
  request: DeleteRunTreesRequest,
): DeleteRunTreesResult {
  let budget = request.maxRuns
  const trees: RunTreeDeletion[] = []
  for (const runId of request.runIds) {
    if (budget === 0) {
      trees.push({ runId, outcome: 'skipped' })
      continue
    }
    const root = store.runs.get(runId)
    if (root === undefined) {
      trees.push({ runId, outcome: 'not_found' })
      continue
    }
    const levels = treeLevels(store, root)
    const blocker = blockerOf(store, root, levels)
    if (blocker !== null) {
      trees.push({ runId, outcome: 'refused', blocker })
      continue
    }
    // Deepest first: what remains of a tree cut short is still a tree under its root.
    const doomed = levels.flat().reverse().slice(0, budget)
    for (const state of doomed) store.deleteRun(state)
    budget -= doomed.length
    const whole = doomed.length === levels.flat().length
    trees.push({ runId, outcome: whole ? 'deleted' : 'partial', runs: doomed.length })
  }
  return { trees }
}

function inScope(
  store: StoreState,
  query: { statuses: readonly string[]; workflow?: string },
): FinishedPosition[] {
  const statuses = new Set(query.statuses)
  const found: FinishedPosition[] = []
  for (const { run } of store.runs.values()) {
    if (!statuses.has(run.status) || run.finishedAt === null) continue
    if (query.workflow !== undefined && run.workflow !== query.workflow) continue
    found.push({ finishedAt: run.finishedAt, runId: run.id })
  }
  return found
}

/** The tree under `root`, one array per depth (the root's first). */
function treeLevels(store: StoreState, root: RunState): RunState[][] {
  const levels: RunState[][] = []
  for (let level = [root]; level.length > 0;) {
    levels.push(level)
    level = level.flatMap((state) => [...(store.children.get(state.run.id) ?? [])])
  }
  return levels
}

function blockerOf(store: StoreState, root: RunState, levels: RunState[][]): RunTreeBlocker | null {
  const open = levels.flat().find((state) => !isTerminalStatus(state.run.status))
  if (open !== undefined) {
    const relation = open === root ? 'self' : 'descendant'
    return { runId: open.run.id, status: open.run.status, relation }
  }
  const parentId = root.run.parentRunId
  const parent = parentId === null ? undefined : store.runs.get(parentId)
  if (parent === undefined || isTerminalStatus(parent.run.status)) return null
  return { runId: parent.run.id, status: parent.run.status, relation: 'parent' }
}

function parentOpen(store: StoreState, state: RunState): boolean {
  const parentId = state.run.parentRunId
  const parent = parentId === null ? undefined : store.runs.get(parentId)
  return parent !== undefined && !isTerminalStatus(parent.run.status)
}
