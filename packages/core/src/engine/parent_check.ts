/**
 * A child run starts only while its parent is not cancelled. Cancelling a parent cancels its
 * open children (cancellation.ts), but a child's create is not fenced by its parent's lease: a
 * parent turn that created the child just as the parent was cancelled elsewhere can commit the
 * child after the cascade listed the children — a child nobody cancels. So before a child's
 * first step (a turn with no history), the driver reads its parent: cancelled, the child ends
 * `cancelled` too, having run nothing. One read per child turn that has no history yet.
 */
import type { RunRecord } from '../contracts/records.ts'
import { CancelledError } from '../errors/index.ts'
import { cancelUnstarted, type UnstartedCancelDeps } from './unstarted_cancel.ts'

/** True when `run` (a claimed child with no history) may start; else it has been ended. */
export async function parentAllowsStart(
  deps: UnstartedCancelDeps,
  run: RunRecord & { parentRunId: string },
): Promise<boolean> {
  const parent = await deps.options.store.getRun(run.parentRunId)
  if (parent?.status !== 'cancelled') return true
  const error = new CancelledError(
    `parent run "${run.parentRunId}" was cancelled before this child started`,
    { details: { runId: run.id, parentRunId: run.parentRunId } },
  )
  await cancelUnstarted(deps, run, error)
  return false
}
