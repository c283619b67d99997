/**
 * A dead letter (`dlq:<runId>`, dead_letters.ts) runs only once its run has ended `failed` or
 * `dead`. The letter is written in the same batch as, and before, its run's fenced ending —
 * but an op of a batch applies on its own, and a long batch may be split: the letter can exist
 * while its run's ending was refused (a cancel won, or another engine holds the run now) or is
 * not written yet. So, before the letter's first step:
 * - the run ended `failed` or `dead`: the letter runs;
 * - the run is still live: the letter is handed back for later (its run may yet fail — the
 *   letter is already there for it);
 * - the run ended otherwise (completed, cancelled, continued) or is gone: the letter ends
 *   `cancelled` without running — those endings are final, so no letter is ever due.
 * Checked only for a run with a `dlq:` id whose input names its run (`deadRunId`).
 */
import type { RunRecord } from '../contracts/records.ts'
import { CancelledError } from '../errors/index.ts'
import { isTerminalStatus } from '../store/run_statuses.ts'
import { isDeadLetterRunId } from './dead_letters.ts'
import { cancelUnstarted, type UnstartedCancelDeps } from './unstarted_cancel.ts'

/** True when the letter `run` (claimed, leased, unstarted) may run; else its lease is dealt with. */
export async function deadLetterMayRun(
  deps: UnstartedCancelDeps,
  run: RunRecord,
): Promise<boolean> {
  const deadRunId = letterSource(deps, run)
  if (deadRunId === null) return true
  const { store, clock, leaseMs, logger } = deps.options
  const source = await store.getRun(deadRunId)
  if (source?.status === 'failed' || source?.status === 'dead') return true
  if (source !== null && !isTerminalStatus(source.status)) {
    logger.debug({ runId: run.id, deadRunId }, 'cairn: a dead letter waits for its run to end')
    const fence = { runId: run.id, epoch: run.leaseEpoch }
    await deps.committer.enqueue({ type: 'releaseRun', fence, availableAt: clock.now() + leaseMs })
    return false
  }
  const ended = source === null ? 'does not exist' : `ended ${source.status}`
  const error = new CancelledError(
    `run "${deadRunId}" ${ended}, not failed or dead: its dead letter does not run`,
    { details: { runId: run.id, deadRunId } },
  )
  await cancelUnstarted(deps, run, error)
  return false
}

/** The run a letter is about, from its input; null for a run that is no letter. */
function letterSource(deps: UnstartedCancelDeps, run: RunRecord): string | null {
  if (!isDeadLetterRunId(run.id)) return null
  try {
    const input = deps.options.codec.decode(run.input) as { deadRunId?: unknown } | null
    return typeof input?.deadRunId === 'string' ? input.deadRunId : null
  } catch {
    return null
  }
}
