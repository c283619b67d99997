/**
 * Deleting finished runs (retention, `engine.deleteRun`, `engine.purgeRuns`) as a StateStore
 * does it (docs/design/retention.md). Types only.
 *
 * A run is deleted with its subtree (its children, their children, …) and every row that
 * belongs to them: checkpoints, inbox messages, tags, search attributes, event waits and
 * queue items. Only finished runs go: a tree with an open run, or whose root's parent is open
 * (it still waits on, or may replay against, the root), is refused whole.
 *
 * Methods (on StateStore): `retentionCutoff` and `expiredRuns` (reads), `deleteRunTrees`
 * (one transaction per call, bounded).
 */
import type { RunStatus, TerminalStatus } from './records.ts'

/** A finished run's place in finish order: (finishedAt, runId), ids by code point. */
export interface FinishedPosition {
  finishedAt: number
  runId: string
}

/**
 * Where the `keepNewest` newest finished runs of a scope begin (`retentionCutoff`): runs with
 * one of `statuses` (1..5 distinct terminal statuses), of `workflow` when given.
 */
export interface RetentionCutoffQuery {
  statuses: readonly TerminalStatus[]
  workflow?: string
  /** 1..1,000,000. */
  keepNewest: number
}

/**
 * One page of finished runs a policy lets go (`expiredRuns`): status in `statuses`, of
 * `workflow` when given, placed before `before` and after `after`, whose parent is absent or
 * finished (a run an open parent waits on is never offered). Oldest first.
 */
export interface ExpiredRunsQuery {
  statuses: readonly TerminalStatus[]
  workflow?: string
  /** Exclusive upper bound. */
  before: FinishedPosition
  /** Exclusive lower bound (the previous page's last run); absent: from the oldest. */
  after?: FinishedPosition
  /** 1..1000. */
  limit: number
}

export interface DeleteRunTreesRequest {
  /** The roots: 1..100 distinct run ids. Deleted in this order. */
  runIds: readonly string[]
  /**
   * The most runs this call deletes, over every tree (1..10,000): what bounds one
   * transaction. A tree larger than what is left of it loses its deepest runs first (its
   * `partial` outcome; a later call goes on with it), and the trees after it are `skipped`.
   */
  maxRuns: number
}

/** The open run that keeps a tree: the root itself, one of its descendants, or its parent. */
export interface RunTreeBlocker {
  runId: string
  status: RunStatus
  relation: 'self' | 'descendant' | 'parent'
}

export type RunTreeDeletion =
  /** The whole tree is gone: `runs` rows of runs (root included) with everything of theirs. */
  | { runId: string; outcome: 'deleted'; runs: number }
  /** `runs` of the tree's deepest runs are gone; the root and the rest remain. */
  | { runId: string; outcome: 'partial'; runs: number }
  | { runId: string; outcome: 'not_found' }
  /** Nothing of the tree was deleted. */
  | { runId: string; outcome: 'refused'; blocker: RunTreeBlocker }
  /** Not looked at: the call's `maxRuns` was spent on the trees before it. */
  | { runId: string; outcome: 'skipped' }

export interface DeleteRunTreesResult {
  /** One per requested root, in request order. */
  trees: RunTreeDeletion[]
}
