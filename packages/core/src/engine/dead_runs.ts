/**
 * The bound on poison runs. A claim that takes a run over adds 1 to its `recoveries` (the
 * store, in the claim's write); moving on — a suspend, a hand-back, a renewal after a new step
 * outcome, a requeue — sets it back to 0. A claim returning a run above `maxRecoveryAttempts`
 * means its turns kept dying without recording anything (its process crashed, its history
 * could not be read): instead of a turn, the claimer ends it `dead` — fenced by the lease the
 * claim just gave it, with the run's dead letter created in the same batch (dead_letters.ts),
 * its singleton slot and run-queue slot freed and its parent told, as any terminal write does.
 *
 * Nothing of the run is loaded or run: a completed step can never re-run here, and a run
 * whose rows cannot be decoded ends the same way. If this write is lost (a crash), the next
 * claim is one more takeover, still above the bound: the next claimer ends it.
 */
import type { Codec } from '../contracts/codec.ts'
import type { RunRecord } from '../contracts/records.ts'
import type { FinishRunOp, OpResult, StoreOp } from '../contracts/state_store.ts'
import { RunDeadError } from '../errors/index.ts'
import { childOutcomeMessage } from '../execution/child_outcome.ts'
import { encodeError } from '../execution/outcome.ts'
import type { Committer } from './committer.ts'
import { deadLetterCreate, letterCreated, type DeadLetterDeps } from './dead_letters.ts'
import type { EventHub } from './events.ts'
import type { ResolvedEngineOptions } from './options.ts'
import type { RunWaiters } from './run_waiters.ts'

export interface DeadRunDeps {
  options: ResolvedEngineOptions
  committer: Committer
  events: EventHub
  waiters: RunWaiters
  deadLetters: DeadLetterDeps
  /** Something became claimable at `at` (a promoted waiter, the dead letter, the parent). */
  wake(at: number): void
}

/** Whether a claimed run is past the bound and must end `dead` instead of running. */
export function pastRecoveryBound(run: RunRecord, maxRecoveryAttempts: number): boolean {
  return run.recoveries > maxRecoveryAttempts
}

/** End claimed `run` `dead` (see above). Resolves once written; a fenced write changes nothing. */
export async function endDead(deps: DeadRunDeps, run: RunRecord): Promise<void> {
  const { codec, clock, logger, maxRecoveryAttempts } = deps.options
  const now = clock.now()
  const error = encodeError(new RunDeadError(run.id, run.recoveries, maxRecoveryAttempts), codec)
  const letter = deadLetterCreate(deps.deadLetters, run, 'dead', error, now)
  const finish = deadFinish(run, error, codec)
  const ops: StoreOp[] = letter === null ? [finish] : [letter, finish]
  let results: OpResult[]
  try {
    results = await Promise.all(ops.map((op) => deps.committer.enqueue(op)))
  } catch (err) {
    // Not written: the lease lapses, and the next claim (one more takeover) ends it.
    logger.error({ runId: run.id, err }, 'cairn: could not end a run dead; retried after its lease')
    return
  }
  const ended = results[results.length - 1] as OpResult
  if (letter !== null && letterCreated(logger, letter, results[0])) deps.wake(now)
  // Another holder or a cancel got there first (a letter made meanwhile waits for the run's
  // real ending: dead_letter_check.ts).
  if (ended.status !== 'applied') return
  const deadLetterRunId = letter === null ? null : letter.run.id
  logger.error(
    { runId: run.id, workflow: run.workflow, recoveries: run.recoveries, deadLetterRunId },
    'cairn: a run kept dying without moving on; it is dead',
  )
  deps.wake(now)
  deps.waiters.notify(run.id, { status: 'dead', output: null, error })
  if (deps.events.wants('run:dead'))
    deps.events.emit('run:dead', {
      runId: run.id,
      workflow: run.workflow,
      version: run.version,
      error: codec.decode(error) as never,
      recoveries: run.recoveries,
      deadLetterRunId,
    })
}

/** The fenced terminal write, releasing what a finish releases. */
function deadFinish(run: RunRecord, error: string, codec: Codec): FinishRunOp {
  const op: FinishRunOp = {
    type: 'finishRun',
    fence: { runId: run.id, epoch: run.leaseEpoch },
    status: 'dead',
    output: null,
    error,
    // Registered while it ran (a wait for an event): they would deliver to a dead run.
    clearEventWaits: true,
  }
  if (run.admission !== null) op.admission = run.admission
  // Its whole-run slot; its queued steps' items hold nothing once it is dead, and go with the
  // next grant pass of their queue.
  if (run.queue !== null) op.releaseQueues = [run.queue]
  if (run.parentRunId !== null && run.parentSeq !== null)
    op.notify = childOutcomeMessage(
      { runId: run.id, workflow: run.workflow },
      { runId: run.parentRunId, seq: run.parentSeq },
      { status: 'dead', output: null, error },
      codec,
    )
  return op
}
