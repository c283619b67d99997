/**
 * Cancelling a run and everything under it. A cancelled child tells its parent (the parent's
 * wait fails with E_CHILD_FAILED, status `cancelled`) in the same write that cancels it; a
 * cancelled parent cancels its children, and theirs, page by page. The cascade runs after the
 * parent's cancel is committed: if the process dies midway, cancelling the parent again (or
 * the children themselves) finishes the job.
 */
import type { Codec } from '../contracts/codec.ts'
import type { CancelRunOp, OpResult } from '../contracts/state_store.ts'
import { CancelledError } from '../errors/index.ts'
import { childOutcomeMessage } from '../execution/child_outcome.ts'
import { encodeError } from '../execution/outcome.ts'
import type { Committer } from './committer.ts'
import type { ResolvedEngineOptions } from './options.ts'

export interface CancellationDeps {
  options: ResolvedEngineOptions
  committer: Committer
  /** Stops a local turn of `runId`, tells local waiters and listeners it was cancelled. */
  onCancelled(runId: string): Promise<void>
}

const OPEN = ['queued', 'pending', 'running', 'waiting', 'blocked', 'parked'] as const
const PAGE = 100

/** Cancel one run (failing fast on a store outage); null when it does not exist. */
export async function cancelOne(
  deps: CancellationDeps,
  runId: string,
  reason: string,
): Promise<OpResult | null> {
  const { store, codec } = deps.options
  const run = await store.getRun(runId)
  if (run === null) return null
  const error = encodeError(new CancelledError(reason), codec)
  const op: CancelRunOp = { type: 'cancelRun', runId, error }
  // Naming the key it frees promotes the key's next waiter in the same write.
  if (run.admission !== null) op.admission = run.admission
  if (run.parentRunId !== null && run.parentSeq !== null)
    op.notify = parentNotice(run, { runId: run.parentRunId, seq: run.parentSeq }, error, codec)
  const result = await deps.committer.enqueue(op, true)
  if (result.status === 'applied') await deps.onCancelled(runId)
  return result
}

/** Cancel every open descendant of `parentRunId`. Returns how many runs it cancelled. */
export async function cancelChildren(
  deps: CancellationDeps,
  parentRunId: string,
  reason: string,
): Promise<number> {
  let cancelled = 0
  for (;;) {
    const page = await deps.options.store.listRuns({ parentRunId, status: OPEN, limit: PAGE })
    if (page.runs.length === 0) return cancelled
    for (const child of page.runs) {
      const result = await cancelOne(
        deps,
        child.id,
        `parent run "${parentRunId}" was cancelled: ${reason}`,
      )
      if (result?.status === 'applied') cancelled++
      cancelled += await cancelChildren(deps, child.id, reason)
    }
  }
}

function parentNotice(
  run: { id: string; workflow: string },
  parent: { runId: string; seq: number },
  error: string,
  codec: Codec,
) {
  const outcome = { status: 'cancelled' as const, output: null, error }
  return childOutcomeMessage({ runId: run.id, workflow: run.workflow }, parent, outcome, codec)
}
