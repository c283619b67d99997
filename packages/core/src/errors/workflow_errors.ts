/**
 * Errors a workflow author throws or catches: they steer retries and explain failures.
 */
import { CairnError, guardFor, type CairnErrorOptions } from './cairn_error.ts'
import { ErrorCodes } from './codes.ts'

/** Thrown from a step: fail now, never retry. */
export class FatalError extends CairnError {
  static readonly code = ErrorCodes.FATAL
  static is = guardFor<FatalError>(ErrorCodes.FATAL)
  constructor(message: string, options?: CairnErrorOptions) {
    super(ErrorCodes.FATAL, message, options)
  }
}

/** Thrown from a step: retry, optionally no sooner than `retryAfterMs` from now. */
export class RetryableError extends CairnError {
  static readonly code = ErrorCodes.RETRYABLE
  static is = guardFor<RetryableError>(ErrorCodes.RETRYABLE)
  readonly retryAfterMs: number | undefined
  constructor(message: string, options: CairnErrorOptions & { retryAfterMs?: number } = {}) {
    super(ErrorCodes.RETRYABLE, message, options)
    this.retryAfterMs = options.retryAfterMs
  }
}

/** Describes one position of a run: what was recorded or what the code asked for. */
export interface StepIdentity {
  seq: number
  name: string
  kind: string
}

/**
 * The workflow code asked for a different step at a recorded position than the one the
 * history holds: the code changed under a running run (or is not deterministic). The run is
 * parked, never run further with the wrong code.
 */
export class NonDeterminismError extends CairnError {
  static readonly code = ErrorCodes.NON_DETERMINISM
  static is = guardFor<NonDeterminismError>(ErrorCodes.NON_DETERMINISM)
  readonly recorded: StepIdentity | null
  readonly attempted: StepIdentity | null
  constructor(message: string, recorded: StepIdentity | null, attempted: StepIdentity | null) {
    super(ErrorCodes.NON_DETERMINISM, message, { details: { recorded, attempted } })
    this.recorded = recorded
    this.attempted = attempted
  }
}

/** A local step exceeded its `timeoutMs` (retried like any other failure). */
export class StepTimeoutError extends CairnError {
  static readonly code = ErrorCodes.STEP_TIMEOUT
  static is = guardFor<StepTimeoutError>(ErrorCodes.STEP_TIMEOUT)
  constructor(step: string, timeoutMs: number) {
    super(ErrorCodes.STEP_TIMEOUT, `step "${step}" timed out after ${timeoutMs} ms`, {
      details: { step, timeoutMs },
    })
  }
}

/**
 * No worker picked a remote step's attempt up within its `pickupTimeoutMs`: the task was taken
 * back from the transport (no worker will start it) and the attempt failed; the step's retry
 * policy decides what comes next.
 */
export class PickupTimeoutError extends CairnError {
  static readonly code = ErrorCodes.PICKUP_TIMEOUT
  static is = guardFor<PickupTimeoutError>(ErrorCodes.PICKUP_TIMEOUT)
  constructor(step: string, transport: string, pickupTimeoutMs: number) {
    super(
      ErrorCodes.PICKUP_TIMEOUT,
      `step "${step}" was not picked up by a worker on "${transport}" within ${pickupTimeoutMs} ms`,
      { details: { step, transport, pickupTimeoutMs } },
    )
  }
}

/** The run was cancelled; what a cancelled run's `error` holds and what aborts its steps. */
export class CancelledError extends CairnError {
  static readonly code = ErrorCodes.RUN_CANCELLED
  static is = guardFor<CancelledError>(ErrorCodes.RUN_CANCELLED)
  constructor(message = 'run cancelled', options?: CairnErrorOptions) {
    super(ErrorCodes.RUN_CANCELLED, message, options)
  }
}

/** `ctx.waitForSignal` saw no signal before its `timeoutMs` ran out. */
export class SignalTimeoutError extends CairnError {
  static readonly code = ErrorCodes.SIGNAL_TIMEOUT
  static is = guardFor<SignalTimeoutError>(ErrorCodes.SIGNAL_TIMEOUT)
  constructor(name: string, timeoutMs: number) {
    super(ErrorCodes.SIGNAL_TIMEOUT, `no signal "${name}" arrived within ${timeoutMs} ms`, {
      details: { signal: name, timeoutMs },
    })
  }
}

/** `ctx.waitForEvent` saw no matching event published before its `timeoutMs` ran out. */
export class EventTimeoutError extends CairnError {
  static readonly code = ErrorCodes.EVENT_TIMEOUT
  static is = guardFor<EventTimeoutError>(ErrorCodes.EVENT_TIMEOUT)
  constructor(name: string, timeoutMs: number) {
    super(ErrorCodes.EVENT_TIMEOUT, `no matching event "${name}" arrived within ${timeoutMs} ms`, {
      details: { event: name, timeoutMs },
    })
  }
}

/** The run outlived its workflow's `executionTimeoutMs`: it was cancelled with this error. */
export class WorkflowTimeoutError extends CairnError {
  static readonly code = ErrorCodes.WORKFLOW_TIMEOUT
  static is = guardFor<WorkflowTimeoutError>(ErrorCodes.WORKFLOW_TIMEOUT)
  constructor(workflow: string, timeoutMs: number) {
    super(
      ErrorCodes.WORKFLOW_TIMEOUT,
      `workflow "${workflow}" ran out of its execution timeout (${timeoutMs} ms)`,
      { details: { workflow, timeoutMs } },
    )
  }
}

/**
 * The run ended `dead`: its lease was taken over more than `maxRecoveryAttempts` times without
 * the run moving on (its process kept dying, or its history could not be read). Its error.
 */
export class RunDeadError extends CairnError {
  static readonly code = ErrorCodes.RUN_DEAD
  static is = guardFor<RunDeadError>(ErrorCodes.RUN_DEAD)
  constructor(runId: string, recoveries: number, maxRecoveryAttempts: number) {
    super(
      ErrorCodes.RUN_DEAD,
      `run "${runId}" was recovered ${recoveries - 1} times without moving on (maxRecoveryAttempts ${maxRecoveryAttempts}): it is dead, not recovered again`,
      { details: { runId, recoveries, maxRecoveryAttempts } },
    )
  }
}

/**
 * A child run started with `ctx.child` failed, was cancelled, or could not start: thrown at
 * the parent's wait. `cause` is the child's own error; `details.status` says which.
 */
export class ChildFailedError extends CairnError {
  static readonly code = ErrorCodes.CHILD_FAILED
  static is = guardFor<ChildFailedError>(ErrorCodes.CHILD_FAILED)
  constructor(message: string, options?: CairnErrorOptions) {
    super(ErrorCodes.CHILD_FAILED, message, options)
  }
}
