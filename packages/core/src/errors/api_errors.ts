/**
 * Errors the engine's API raises for bad requests and unmet conditions.
 */
import { CairnError, guardFor, type CairnErrorOptions } from './cairn_error.ts'
import { ErrorCodes } from './codes.ts'

function defineError(code: string) {
  return class extends CairnError {
    static readonly code = code
    static is = guardFor<CairnError>(code)
    constructor(message: string, options?: CairnErrorOptions) {
      super(code, message, options)
    }
  }
}

/** A value at the API boundary is malformed (ids, durations, options). */
export class InvalidArgumentError extends defineError(ErrorCodes.INVALID_ARGUMENT) {}
/** A list cursor was not issued by this store or was altered. */
export class InvalidCursorError extends defineError(ErrorCodes.INVALID_CURSOR) {}
/** No workflow (or version) of this name is registered on this engine. */
export class WorkflowNotRegisteredError extends defineError(ErrorCodes.WORKFLOW_NOT_REGISTERED) {}
/** The same workflow name and version were registered twice. */
export class DuplicateWorkflowError extends defineError(ErrorCodes.DUPLICATE_WORKFLOW) {}
/**
 * `ctx.step` named a step no `engine.registerStep` registered on the engine executing the run.
 * The run is parked with this code (never failed: the step may be registered by a later
 * deploy) and resumes when an engine process starts driving.
 */
export class StepNotRegisteredError extends defineError(ErrorCodes.STEP_NOT_REGISTERED) {}
/** The same step name was registered twice. */
export class DuplicateStepError extends defineError(ErrorCodes.DUPLICATE_STEP) {}
/** No run has this id. */
export class RunNotFoundError extends defineError(ErrorCodes.RUN_NOT_FOUND) {}
/** No schedule has this id. */
export class ScheduleNotFoundError extends defineError(ErrorCodes.SCHEDULE_NOT_FOUND) {}
/** The run has finished (any terminal status, `continued` too): no signal, no cancel. */
export class RunTerminalError extends defineError(ErrorCodes.RUN_TERMINAL) {}
/**
 * `engine.requeue` refused: the run is not `failed` (`details.status` names what it is), it
 * failed after running its compensations (`details.reason: 'compensated'`), or it is past its
 * workflow's execution timeout (`'execution_timeout'`).
 */
export class RunNotRequeueableError extends defineError(ErrorCodes.RUN_NOT_REQUEUEABLE) {}
/** A run cannot be deleted: it, a descendant, or its parent is still open (details.blocker). */
export class RunNotDeletableError extends defineError(ErrorCodes.RUN_NOT_DELETABLE) {}
/** `engine.continue` found no breakpoint the run waits at. */
export class NotAtBreakpointError extends defineError(ErrorCodes.NOT_AT_BREAKPOINT) {}
/** A webhook callback carried a token no run recorded (malformed, guessed or from another store). */
export class WebhookNotFoundError extends defineError(ErrorCodes.WEBHOOK_NOT_FOUND) {}
/** A run with this id exists with a different workflow or input. */
export class RunIdConflictError extends defineError(ErrorCodes.RUN_ID_CONFLICT) {}
/**
 * A start over its singleton key's limit, with `onFull: 'reject'` or a full queue: nothing was
 * created. `details`: `{ workflow, key, limit, admitted, queued }`.
 */
export class SingletonFullError extends defineError(ErrorCodes.SINGLETON_FULL) {}
/**
 * A start named a queue (`{ queue }`, or its workflow's `queue`) this engine has not
 * registered: nothing was created. `details`: `{ workflow, queue }`.
 */
export class QueueNotRegisteredError extends defineError(ErrorCodes.QUEUE_NOT_REGISTERED) {}
/** `waitForRun` gave up before the run reached a terminal status (the run goes on). */
export class WaitTimeoutError extends defineError(ErrorCodes.WAIT_TIMEOUT) {}
/** The engine is stopped or draining and takes no new work. */
export class EngineStoppedError extends defineError(ErrorCodes.ENGINE_STOPPED) {}
/** The store failed (I/O, disk full, lock timeout); nothing was applied. */
export class StoreFailureError extends defineError(ErrorCodes.STORE_FAILURE) {}
/**
 * `ctx.transaction` on a store that cannot run the app's database writes in the transaction of
 * its checkpoint (its connection is not the app's). Never retried: retrying cannot help.
 */
export class TransactionsUnsupportedError extends defineError(
  ErrorCodes.TRANSACTIONS_UNSUPPORTED,
) {}
/** A schema migration failed; the store did not open. */
export class MigrationFailedError extends defineError(ErrorCodes.MIGRATION_FAILED) {}
/**
 * A worker announced only wire protocol versions this code does not speak: its transport refuses
 * the announcement and hands it no task (docs/wire.md).
 */
export class ProtocolUnsupportedError extends defineError(ErrorCodes.PROTOCOL_UNSUPPORTED) {}
