/**
 * Ending a claimed run `cancelled` before its first step, under the lease the claim gave
 * (fenced): a successor whose predecessor did not continue to it, a child whose parent was
 * cancelled. It tells no parent (the run's cause already ended the parent's interest in it).
 * `onCancelled` looks for work at once: the ending may have promoted a singleton waiter.
 */
import type { RunRecord } from '../contracts/records.ts'
import type { CancelledError } from '../errors/index.ts'
import { encodeError } from '../execution/outcome.ts'
import type { Committer } from './committer.ts'
import type { ResolvedEngineOptions } from './options.ts'

export interface UnstartedCancelDeps {
  options: ResolvedEngineOptions
  committer: Committer
  /** The run ended cancelled: tell waiters and listeners. */
  onCancelled(run: RunRecord): void
}

export async function cancelUnstarted(
  deps: UnstartedCancelDeps,
  run: RunRecord,
  error: CancelledError,
): Promise<void> {
  const result = await deps.committer.enqueue({
    type: 'finishRun',
    fence: { runId: run.id, epoch: run.leaseEpoch },
    status: 'cancelled',
    output: null,
    error: encodeError(error, deps.options.codec),
    // Its singleton slot is freed: naming the key promotes the key's next waiter at once.
    ...(run.admission === null ? {} : { admission: run.admission }),
  })
  if (result.status === 'applied') deps.onCancelled(run)
}
