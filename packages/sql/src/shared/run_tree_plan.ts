/**
 * Which runs a deleteRunTrees call deletes (contracts/retention.ts), for every SQL store. The
 * store first reads the forest under the roots, level by level through its locking reads
 * (`readForest`, one statement per level for all the trees, never one per run), then this
 * plan refuses a tree with an open run or an open parent whole, and takes the others deepest
 * first within the call's `maxRuns`, so what is left of a tree cut short is still a tree.
 */
import type {
  DeleteRunTreesRequest,
  RunStatus,
  RunTreeBlocker,
  RunTreeDeletion,
} from '@cairn/core/contracts'

/** A run as a tree deletion reads it. */
export interface TreeRun {
  key: number
  id: string
  status: RunStatus
  open: boolean
  parentRunId: string | null
  tags: readonly string[]
  createdAt: number
}

/** Runs by id (roots, descendants and the roots' parents) and each run's children. */
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

/** The forest under `rootIds`, with the roots' parents, through `read` (async stores). */
export async function readForest(
  rootIds: readonly string[],
  read: ForestRead<Promise<TreeRun[]>>,
): Promise<Forest> {
  const forest = newForest()
  let level = addRuns(forest, await read('id', rootIds))
  while (level.length > 0) level = addRuns(forest, await read('parent_run_id', level))
  const parents = missingParents(forest, rootIds)
  if (parents.length > 0) addRuns(forest, await read('id', parents))
  return forest
}

/** readForest for a synchronous store (SQLite, inside its write transaction). */
export function readForestSync(rootIds: readonly string[], read: ForestRead<TreeRun[]>): Forest {
  const forest = newForest()
  let level = addRuns(forest, read('id', rootIds))
  while (level.length > 0) level = addRuns(forest, read('parent_run_id', level))
  const parents = missingParents(forest, rootIds)
  if (parents.length > 0) addRuns(forest, read('id', parents))
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
    const siblings = forest.children.get(run.parentRunId) ?? []
    forest.children.set(run.parentRunId, [...siblings, run])
  }
  return added
}

function missingParents(forest: Forest, rootIds: readonly string[]): string[] {
  const parents = new Set<string>()
  for (const id of rootIds) {
    const parentId = forest.runs.get(id)?.parentRunId
    if (parentId != null && !forest.runs.has(parentId)) parents.add(parentId)
  }
  return [...parents]
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
  if (parent === undefined || !parent.open) return null
  return { runId: parent.id, status: parent.status, relation: 'parent' }
}
