/**
 * `engine.requeue`: put a failed or dead run back to work (a dead one with its recovery count
 * back at 0). The engine reads the run and its history,
 * decides which positions run again (requeue_plan.ts), and the store applies that in one
 * transaction conditioned on the run still being failed at the epoch read — so a concurrent
 * requeue, or one racing a run that was requeued and failed again meanwhile, never applies a
 * plan made from another history.
 */
import type { RunRecord } from '../contracts/records.ts'
import { RunNotFoundError, RunNotRequeueableError } from '../errors/index.ts'
import type { EventHub } from './events.ts'
import type { ResolvedEngineOptions } from './options.ts'
import { planRequeue } from './requeue_plan.ts'

export interface RequeueReceipt {
  runId: string
  /** How many failed steps were reset: they run again, with a fresh retry budget. */
  positionsReset: number
  /**
   * True when the run holds a singleton key whose slots are taken: it is `queued` at the back
   * of the key's queue, and starts when a slot frees. Absent otherwise.
   */
  queued?: boolean
}

export interface RequeuerDeps {
  options: ResolvedEngineOptions
  events: EventHub
  /** The execution timeout this engine knows for a workflow version, if any. */
  executionTimeoutMs(workflow: string, version: string): number | undefined
  /** The run is claimable from `at`: this engine, if it drives runs, looks at once. */
  wake(at: number): void
  /** Its ended children tell it their outcomes again (child_outcome_redelivery.ts). */
  redeliverChildren(runId: string): Promise<void>
}

/**
 * Rounds of "read, plan, apply" before giving up: each further round means another caller
 * requeued the run and it failed again in between, so more than a few means something loops.
 */
const MAX_ROUNDS = 5

export async function requeueRun(deps: RequeuerDeps, runId: string): Promise<RequeueReceipt> {
  const { store, codec, clock } = deps.options
  for (let round = 1; ; round++) {
    const run = await store.getRun(runId)
    if (run === null) throw notFound(runId)
    if (!isRequeueable(run.status)) throw notFailed(runId, run.status)
    checkExecutionDeadline(deps, run)
    // A dead run failed no step: nothing resets (and its history may be what cannot be read).
    const plan =
      run.status === 'dead'
        ? { resetSeqs: [] }
        : planRequeue(run.error, await store.loadCheckpoints(runId), codec)
    if ('refused' in plan) throw compensated(runId)
    const now = clock.now()
    const request = { runId, epoch: run.leaseEpoch, resetSeqs: plan.resetSeqs, now }
    const result = await store.requeueRun(request)
    if (result.status === 'applied') {
      // After the requeue: an outcome sent to a run still failed would be dropped again.
      await deps.redeliverChildren(runId)
      deps.wake(now)
      emitRequeued(deps.events, run, result.positionsReset)
      const queued = result.queued === true ? { queued: true } : {}
      return { runId, positionsReset: result.positionsReset, ...queued }
    }
    if (result.status === 'not_found') throw notFound(runId)
    if (!isRequeueable(result.current.status) || round === MAX_ROUNDS)
      throw notFailed(runId, result.current.status)
  }
}

/**
 * An execution timeout counts from the run's creation, requeue or not: a run past it would be
 * cancelled with E_WORKFLOW_TIMEOUT on its first turn, so it is refused here instead. (An
 * engine that does not register the workflow cannot tell; the run is then cancelled there.)
 */
function checkExecutionDeadline(deps: RequeuerDeps, run: RunRecord): void {
  const timeoutMs = deps.executionTimeoutMs(run.workflow, run.version)
  if (timeoutMs === undefined || deps.options.clock.now() < run.createdAt + timeoutMs) return
  throw new RunNotRequeueableError(
    `run "${run.id}" is past its execution timeout (${timeoutMs} ms from its creation); start a new run instead`,
    { details: { runId: run.id, status: 'failed', reason: 'execution_timeout', timeoutMs } },
  )
}

function isRequeueable(status: string): boolean {
  return status === 'failed' || status === 'dead'
}

function emitRequeued(events: EventHub, run: RunRecord, positionsReset: number): void {
  if (!events.wants('run:requeued')) return
  const { id: runId, workflow, version } = run
  events.emit('run:requeued', { runId, workflow, version, positionsReset })
}

function notFound(runId: string): RunNotFoundError {
  return new RunNotFoundError(`no run with id "${runId}"`, { details: { runId } })
}

function notFailed(runId: string, status: string): RunNotRequeueableError {
  return new RunNotRequeueableError(
    `run "${runId}" is ${status}; only a failed or dead run can be requeued`,
    { details: { runId, status, reason: 'not_failed' } },
  )
}

function compensated(runId: string): RunNotRequeueableError {
  return new RunNotRequeueableError(
    `run "${runId}" failed after running its compensations (its completed steps were undone); start a new run instead`,
    { details: { runId, status: 'failed', reason: 'compensated' } },
  )
}
