/**
 * Which runs a deleteRunTrees call deletes (contracts/retention.ts), for every store. The
 * store first reads the forest under the roots (`readForest`: one statement per level for all
 * the trees, never one per run) with the runs the trees answer to — the roots' parents, the
 * successors of continued runs, the dead letters of failed and dead ones — then this plan
 * refuses a tree that something open still needs, and takes the others deepest first within
 * the call's `maxRuns`, so what is left of a tree cut short is still a tree.
 */
import type { RunStatus } from '../contracts/records.ts'
import type {
  DeleteRunTreesRequest,
  RunTreeBlocker,
  RunTreeDeletion,
} from '../contracts/retention.ts'
import { deadLetterRunId } from '../util/dead_letter_id.ts'
import { compareFinished } from './retention_rules.ts'

/** A run as a tree deletion reads it. */
export interface TreeRun {
  key: number
  id: string
  status: RunStatus
  open: boolean
  parentRunId: string | null
  continuedTo: string | null
  finishedAt: number | null
  tags: readonly string[]
  createdAt: number
}

/** Runs by id (roots, descendants, the runs they answer to) and each run's children. */
export interface Forest {
  runs: Map<string, TreeRun>
  children: Map<string, TreeRun[]>
}

export interface TreeDeletionPlan {
  trees: RunTreeDeletion[]
  /** Every run to delete, in deletion order (deepest first per tree). */
  doomed: TreeRun[]
}

/** Reads runs by id or by parent id (locking them); sync on SQLite, async elsewhere. */
export type ForestRead<R> = (column: 'id' | 'parent_run_id', values: readonly string[]) => R

/**
 * Parents a finished child still answers to: an open one may read its result or replay
 * against it, and a failed or dead one may be requeued and replay against it.
 */
const DONE_WITH_CHILDREN: ReadonlySet<RunStatus> = new Set(['completed', 'cancelled', 'continued'])

/**
 * The forest under `rootIds` and the runs it answers to (async stores). Top-down, so two
 * deleters lock in one order: the roots' parents first (their ids read without a lock), then
 * the roots, then each level below; the successors and letters last.
 */
export async function readForest(
  rootIds: readonly string[],
  read: ForestRead<Promise<TreeRun[]>>,
  parentIdsOf: (ids: readonly string[]) => Promise<string[]>,
): Promise<Forest> {
  const forest = newForest()
  const parents = (await parentIdsOf(rootIds)).filter((id) => !rootIds.includes(id))
  if (parents.length > 0) addRuns(forest, await read('id', parents))
  let level = addRuns(forest, await read('id', rootIds))
  while (level.length > 0) level = addRuns(forest, await read('parent_run_id', level))
  const others = answeredTo(forest)
  if (others.length > 0) addRuns(forest, await read('id', others))
  return forest
}

/** readForest for a synchronous store (SQLite, inside its write transaction: no lock order). */
export function readForestSync(rootIds: readonly string[], read: ForestRead<TreeRun[]>): Forest {
  const forest = newForest()
  let level = addRuns(forest, read('id', rootIds))
  while (level.length > 0) level = addRuns(forest, read('parent_run_id', level))
  const parents = rootIds.flatMap((id) => forest.runs.get(id)?.parentRunId ?? [])
  const others = [...parents, ...answeredTo(forest)].filter((id) => !forest.runs.has(id))
  if (others.length > 0) addRuns(forest, read('id', [...new Set(others)]))
  return forest
}

export function planTreeDeletion(request: DeleteRunTreesRequest, forest: Forest): TreeDeletionPlan {
  let budget = request.maxRuns
  const trees: RunTreeDeletion[] = []
  const doomed: TreeRun[] = []
  // Runs taken by an earlier tree of this call (a root may lie under another root).
  const gone = new Set<string>()
  for (const runId of request.runIds) {
    const root = forest.runs.get(runId)
    if (budget === 0) trees.push({ runId, outcome: 'skipped' })
    else if (root === undefined || gone.has(runId)) trees.push({ runId, outcome: 'not_found' })
    else if (!asExpected(root, request)) trees.push({ runId, outcome: 'changed' })
    else {
      const tree = treeOf(root, forest, gone)
      const blocker = blockerOf(root, tree, forest)
      if (blocker !== null) {
        trees.push({ runId, outcome: 'refused', blocker })
        continue
      }
      const taken = tree.slice(tree.length - Math.min(budget, tree.length)).reverse()
      doomed.push(...taken)
      for (const run of taken) gone.add(run.id)
      budget -= taken.length
      const outcome = taken.length === tree.length ? 'deleted' : 'partial'
      trees.push({ runId, outcome, runs: taken.length })
    }
  }
  return { trees, doomed }
}

function newForest(): Forest {
  return { runs: new Map(), children: new Map() }
}

/** Adds runs not seen yet (a damaged row naming its descendant as parent cannot loop the walk); returns their ids. */
function addRuns(forest: Forest, runs: readonly TreeRun[]): string[] {
  const added: string[] = []
  for (const run of runs) {
    if (forest.runs.has(run.id)) continue
    forest.runs.set(run.id, run)
    added.push(run.id)
    if (run.parentRunId === null) continue
    const siblings = forest.children.get(run.parentRunId)
    if (siblings === undefined) forest.children.set(run.parentRunId, [run])
    else siblings.push(run)
  }
  return added
}

/** Successors of continued runs and dead letters of failed and dead ones, not read yet. */
function answeredTo(forest: Forest): string[] {
  const ids = new Set<string>()
  for (const run of forest.runs.values()) {
    if (run.status === 'continued' && run.continuedTo !== null) ids.add(run.continuedTo)
    if (run.status === 'failed' || run.status === 'dead') ids.add(deadLetterRunId(run.id))
  }
  return [...ids].filter((id) => !forest.runs.has(id))
}

/** The root is still what the caller found (its status, finished before the bound). */
function asExpected(root: TreeRun, request: DeleteRunTreesRequest): boolean {
  const expect = request.expect
  if (expect === undefined) return true
  if (!expect.statuses.includes(root.status as never)) return false
  if (expect.finishedBefore === undefined) return true
  return (
    root.finishedAt !== null &&
    compareFinished({ finishedAt: root.finishedAt, runId: root.id }, expect.finishedBefore) < 0
  )
}

/** The tree in breadth-first order (root first): its deepest runs are at the end. */
function treeOf(root: TreeRun, forest: Forest, gone: ReadonlySet<string>): TreeRun[] {
  const tree = [root]
  const seen = new Set([root.id])
  for (let i = 0; i < tree.length; i++)
    for (const child of forest.children.get((tree[i] as TreeRun).id) ?? [])
      if (!seen.has(child.id) && !gone.has(child.id)) {
        tree.push(child)
        seen.add(child.id)
      }
  return tree
}

function blockerOf(root: TreeRun, tree: readonly TreeRun[], forest: Forest): RunTreeBlocker | null {
  const open = tree.find((run) => run.open)
  if (open !== undefined)
    return { runId: open.id, status: open.status, relation: open === root ? 'self' : 'descendant' }
  const parent = root.parentRunId === null ? undefined : forest.runs.get(root.parentRunId)
  if (parent !== undefined && !DONE_WITH_CHILDREN.has(parent.status))
    return { runId: parent.id, status: parent.status, relation: 'parent' }
  return waitingOnTree(tree, forest)
}

/**
 * An open run outside the tree that still reads one of it: a continued run's successor that
 * has not started (it checks its predecessor first, and takes its unread signals), or a failed
 * or dead run's dead letter (it checks how its run ended before it runs).
 */
function waitingOnTree(tree: readonly TreeRun[], forest: Forest): RunTreeBlocker | null {
  const inTree = new Set(tree.map((run) => run.id))
  for (const run of tree) {
    const successor = run.continuedTo === null ? undefined : forest.runs.get(run.continuedTo)
    if (run.status === 'continued' && successor?.open && !inTree.has(successor.id))
      return { runId: successor.id, status: successor.status, relation: 'successor' }
    const letter =
      run.status === 'failed' || run.status === 'dead'
        ? forest.runs.get(deadLetterRunId(run.id))
        : undefined
    if (letter?.open && !inTree.has(letter.id))
      return { runId: letter.id, status: letter.status, relation: 'dead_letter' }
  }
  return null
}
