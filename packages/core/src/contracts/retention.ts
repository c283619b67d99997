/**
 * Deleting finished runs (retention, `engine.deleteRun`, `engine.purgeRuns`) as a StateStore
 * does it (docs/design/retention.md). Types only.
 *
 * A run is deleted with its subtree (its children, their children, …) and every row that
 * belongs to them: checkpoints, inbox messages, tags, search attributes, event waits and
 * queue items. Only finished runs go, and none that something may still read: a tree with an
 * open run, whose root's parent is open, failed or dead, or one of whose runs an open
 * successor or dead letter still reads (RunTreeBlocker), is refused whole.
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
 * done with it (completed, cancelled or continued) and, for a continued run, whose successor
 * is finished. Oldest first. (deleteRunTrees still refuses what this cannot see: a tree's
 * open descendants, an open dead letter.)
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
   * Given: a root that is no longer what the caller found — its status not one of
   * `statuses`, or (with `finishedBefore`) finished at or after it, as a run requeued and
   * finished again since its page was read — is left (`changed`).
   */
  expect?: { statuses: readonly TerminalStatus[]; finishedBefore?: FinishedPosition }
  /**
   * The most runs this call deletes, over every tree (1..10,000): what bounds one
   * transaction. A tree larger than what is left of it loses its deepest runs first (its
   * `partial` outcome; a later call goes on with it), and the trees after it are `skipped`.
   */
  maxRuns: number
}

/**
 * The run that keeps a tree: the root itself or one of its descendants (open); the root's
 * parent (open, or failed or dead: a requeue would replay against its children); a continued
 * run's successor that is open (before its first step it reads its predecessor and takes its
 * unread signals); a failed or dead run's open dead letter (it reads how its run ended).
 */
export interface RunTreeBlocker {
  runId: string
  status: RunStatus
  relation: 'self' | 'descendant' | 'parent' | 'successor' | 'dead_letter'
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
  /** Not deleted: the root is no longer what `expect` says (it was requeued, say). */
  | { runId: string; outcome: 'changed' }

export interface DeleteRunTreesResult {
  /** One per requested root, in request order. */
  trees: RunTreeDeletion[]
}
