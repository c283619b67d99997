/**
 * What a ctx primitive may do to the turn it runs in. Types only: the turn implements it,
 * the primitives (local steps, sleeps, side effects, patches) use nothing else, so each
 * primitive lives in its own file and the turn stays about lifecycle.
 */
import type { Clock } from '../contracts/clock.ts'
import type { Codec } from '../contracts/codec.ts'
import type {
  CheckpointKind,
  CheckpointRecord,
  InboxMessage,
  ParkReason,
  StepWorker,
} from '../contracts/records.ts'
import type { EventWaitToRegister, Fence, QueueRequest } from '../contracts/state_store.ts'
import type { StepLogAppend } from '../contracts/step_logs.ts'
import type { StepLogSink } from '../engine/step_log_sink.ts'
import type { RegisteredQueue } from '../engine/queue_registry.ts'
import type { LeaseAnswer } from '../engine/slot_leases.ts'
import type { QueuePlacement } from './step_queue.ts'
import type { LiveResultHandler } from './live_tasks.ts'
import type { LiveGrantHandler } from './live_grants.ts'
import type { TaskToPublish, WithdrawOutcome } from '../contracts/transport.ts'
import type { TaskMessage } from '../wire/index.ts'
import type { ChildRequest, ChildStart } from '../engine/child_starter.ts'
import type { EventHub } from '../engine/events.ts'
import type { RegisteredStep } from '../engine/step_registry.ts'
import type { SearchAttributeUpsert } from '../contracts/search_attributes.ts'
import type { StandardSchemaV1 } from '../contracts/standard_schema.ts'
import type { RetryPolicy } from './retry_policy.ts'
import type { RetryOptions } from './types.ts'

/** An outcome ready to record: encoded output, or an encoded SerializedError. */
export type EncodedOutcome = { ok: true; output: string | null } | { ok: false; error: string }

export interface StepRecordInput {
  seq: number
  name: string
  kind: CheckpointKind
  attempts: number
  startedAt: number
  wakeAt?: number | null
  /** A registered step's encoded input (CheckpointRecord.input); absent: null. */
  input?: string | null
  /** A remote attempt's worker, as its result reports it (CheckpointRecord.worker); absent: null. */
  worker?: StepWorker | null
  /**
   * An outcome (completed, failed, retrying) of an attempt that held a slot of this queue:
   * the save gives the slot back (SaveCheckpointOp.release).
   */
  release?: string
  /** Lines the attempt logged and the store has not seen: saved with it (SaveCheckpointOp.logs). */
  logs?: StepLogAppend
}

export interface TurnRuntime {
  readonly runId: string
  /** The lease this turn writes under. */
  readonly fence: Fence
  /** Where a running step's lines go live, and the engine's `stepLogs` settings. */
  readonly stepLogs: StepLogSink
  readonly workflow: string
  readonly version: string
  /** The run's claim priority: its children's unless they are given one. */
  readonly priority: number
  /** The queue the whole run holds a slot of (RunRecord.queue), or null. */
  readonly queue: string | null
  readonly clock: Clock
  readonly codec: Codec
  readonly events: EventHub
  /** Aborted when the turn ends for any reason other than finishing normally. */
  readonly signal: AbortSignal
  /** Retry defaults of the workflow. */
  readonly retryDefaults: RetryOptions | undefined
  /** The policy of a step given no options (the workflow's defaults, resolved once). */
  readonly defaultRetryPolicy: RetryPolicy
  /** The workflow's schema for its search attribute upserts, if it declared one. */
  readonly searchAttributeSchema: StandardSchemaV1 | undefined
  /** False once the turn has ended: primitives stop doing anything. */
  readonly live: boolean
  /** A compensating cancel is stopping the body: no new attempt starts (compensations excepted). */
  readonly stopping: boolean

  /**
   * Call `start` once the run's lease is known to be held — at once while it was confirmed
   * recently, else after the store confirms it. Every primitive calls it right before running
   * user code with effects (a step attempt, a compensation, a transaction, a side effect). If
   * the lease turns out lost, the turn has ended before `start` runs: `start` checks `live`.
   */
  whenLeaseHeld(start: () => void): void
  /**
   * The lease was confirmed recently enough to start user code now (whenLeaseHeld's fast
   * path): the monotonic time it was found fresh at, or null when it may have lapsed.
   */
  leaseFreshAt(): number | null
  /**
   * Call `start` once the store has confirmed the lease now, however fresh it looks (a cancel
   * from another process moves the epoch without waiting for the lease to lapse). For user
   * code that starts after a wait no write interrupted: a retry after its back-off.
   */
  confirmLease(start: () => void): void
  /**
   * A recorded outcome or a message the codec cannot read (`what` says which): the turn stops
   * without writing and without handing the run back, so the next claims count as takeovers and
   * the run ends `dead` after `maxRecoveryAttempts` (engine/dead_runs.ts). Never thrown into the
   * workflow: it is no failure of the workflow's.
   */
  unreadable(what: string, error: unknown): void
  /** Take the next position. */
  takeSeq(): number
  /** Peek at the next position without taking it. */
  peekSeq(): number
  /**
   * The record at `seq` if its identity matches; undefined if nothing is recorded there.
   * On a mismatch the run is parked with a NonDeterminismError and `null` is returned: the
   * primitive must then return `never()`.
   */
  recorded(seq: number, name: string, kind: CheckpointKind): CheckpointRecord | undefined | null
  /** A record at `seq`, whatever its identity (for `patched`). */
  recordAt(seq: number): CheckpointRecord | undefined
  /** The promise the body awaits for `seq`; settled by a delivery. */
  awaitOutcome<T>(seq: number): Promise<T>
  /**
   * Record the final outcome of `seq` (durably, group-committed) and then deliver it.
   * `consumes`: the inbox message this outcome received, consumed in the same write.
   * `searchAttributes`: written by the store with the checkpoint, iff it applies.
   * `onDurable`: told whether the write applied (true once durable; false if it did not).
   */
  complete(
    step: StepRecordInput,
    outcome: EncodedOutcome,
    consumes?: number,
    searchAttributes?: SearchAttributeUpsert,
    onDurable?: (applied: boolean) => void,
  ): void
  /**
   * Record the outcome of a step that finished after the turn ended because the run was
   * cancelled: kept at its position (not delivered, nothing acted on). Dropped otherwise.
   */
  recordLate(step: StepRecordInput, outcome: EncodedOutcome): void
  /** Durably record a failed attempt that will be retried at `wakeAt`. Resolves false if the turn was lost. */
  saveRetrying(
    step: StepRecordInput,
    error: string,
    wakeAt: number,
    /** The inbox message the failed attempt's outcome came in (consumed with the save). */
    consumes?: number,
  ): Promise<boolean>
  /**
   * Durably record a `waiting` checkpoint at `step.seq` (a remote step's attempt: its input,
   * attempt number and next check at `step.wakeAt`). Resolves true once durable; false if the
   * turn was lost or the position already holds an outcome (then delivered instead).
   */
  saveWaiting(step: StepRecordInput): Promise<boolean>
  /**
   * Durably record the `waiting` checkpoint of a step that asks queue `request.queue` for a
   * slot (SaveCheckpointOp.enqueue). Resolves true when the position holds a slot after the
   * save (granted by it, or before it: a replay), false when it waits in line (its grant will
   * come as the message queueSlotMessage(seq)), null if the turn was lost or the position holds
   * an outcome.
   */
  saveQueued(step: StepRecordInput, request: QueueRequest): Promise<boolean | null>
  /** A queued step of this run was reached without its outcome: its finish releases `queue`. */
  noteQueue(queue: string): void
  /** The queue registered on this engine under `name`, or undefined. */
  findQueue(name: string): RegisteredQueue | undefined
  /**
   * A slot of `queue` for one attempt from this engine's slot lease (docs/flow-control.md
   * "Slot leases"), answered now or when one frees; null: take the durable line (saveQueued).
   */
  leaseSlot(queue: RegisteredQueue, placement: QueuePlacement, answer: LeaseAnswer): void
  /** Hand a remote step's task to the engine's transport `transport` (after its save is durable). */
  publishTask(transport: string, task: TaskToPublish): void
  /** Whether this engine has a transport of this name (EngineOptions.transports). */
  hasTransport(name: string): boolean
  /**
   * What no live worker on `transport` offers for `step` with `requires` (the run is blocked),
   * or null: a worker serves it, or the engine cannot tell (engine/fleet_view.ts). Answers
   * from the engine's last fleet read, at once.
   */
  blockedReason(transport: string, step: string, requires: readonly string[]): string | null
  /**
   * Give the durable wait at `seq` (just registered by waitDurably) a blocked probe: asked when
   * the run suspends, it names what no live worker offers (then the run suspends `blocked`,
   * looked at again within BLOCKED_RECHECK_MS) or returns null.
   */
  probeBlocked(seq: number, probe: () => string | null): void
  /**
   * Keep the run in memory for a remote step's result (up to the engine's `holdTimersUpToMs`,
   * as a short sleep is kept) and let the engine hand `handler` that result directly
   * (live_tasks.ts) while it does. The returned function ends the hold early (the result was
   * recorded). Time up or the turn ending ends it by itself; the result then takes the inbox.
   */
  holdForResult(taskId: string, handler: LiveResultHandler): () => void
  /**
   * Keep the run in memory while position `seq` waits for a queue slot (up to the engine's
   * `holdTimersUpToMs`), and let the engine hand `handler` a grant its own writes make for it
   * (live_grants.ts). The returned function ends the hold early (the grant came another way).
   * Time up or the turn ending ends it by itself; a grant then reaches the run's inbox.
   */
  holdForGrant(seq: number, handler: LiveGrantHandler): () => void
  /**
   * Take a published task back from transport `transport` if no worker ever received it
   * (EngineTransport.withdraw; `pickupTimeoutMs`). Rejects when the transport cannot answer.
   */
  withdrawTask(transport: string, task: TaskMessage): Promise<WithdrawOutcome>
  /** Forget the durable wait at `seq` (its result was recorded another way). */
  clearWait(seq: number): void
  /**
   * One attempt of a transactional step (transactional_commit.ts): the store runs `run` with
   * its transaction handle and commits the `completed` checkpoint of `step` with the output
   * `run` returns (codec text) in that transaction; the outcome is then delivered like
   * `complete`'s. Resolves true when committed, false when the turn ended instead (rolled
   * back); rejects with `run`'s error or the store's (rolled back, nothing recorded), or with
   * E_TRANSACTIONS_UNSUPPORTED when the store has no transactional steps.
   */
  commitInTransaction(
    step: StepRecordInput,
    run: (handle: unknown) => Promise<string | null>,
    /** The lines the step logged, taken once `run` returned: they commit with its outcome. */
    takeLogs?: () => StepLogAppend | undefined,
  ): Promise<boolean>
  /** Record a marker (patch) with no delivery; it lands before any later write of this run. */
  saveMarker(step: StepRecordInput): void
  /**
   * Wait until `wakeAt` (engine clock). Short waits hold the lease and call `onDue` in this
   * turn; long ones become durable waits: the turn may suspend, and `onDue` is never called
   * (replay resumes the primitive instead). `pending` is the record to save on suspension
   * (a sleep not yet written), or null when already durable. Returns true when held (`onDue`
   * will be called), false when durable — then, if the turn is still executing (so has not
   * suspended) when `wakeAt` comes, `onDueLater` (default `onDue`) is called in this turn.
   */
  waitUntil(
    seq: number,
    wakeAt: number,
    label: string,
    pending: CheckpointRecord | null,
    onDue: () => void,
    onDueLater?: () => void,
  ): boolean
  /**
   * Take the oldest message addressed to signal `name` that no other position of this turn
   * took, or null. Taking is final for the turn; it becomes durable with `complete(…, seq)`.
   */
  takeMessage(name: string): InboxMessage | null
  /**
   * A durable wait that never holds the lease: the run suspends (when nothing else runs)
   * until `wakeAt` (null: until a message arrives), and the next turn re-evaluates it. With
   * `recheck` (a wait a message ends), a turn that stays busy re-evaluates it itself: when a
   * new message for the run is read, and at `wakeAt` — so it can win a race against a long
   * step. `recheck` either completes the position or calls `waitDurably` again.
   * `message`: the name of the message that ends the wait (what it takes from the inbox): while
   * the run is suspended, only such a message (or a cancel) wakes it.
   * `event`: an event wait, registered with the suspend (and checked against the event log
   * once the suspend is durable) so publishers deliver to it.
   * `onResume`: for a wait no busy turn may re-evaluate (an event wait), what a turn kept in
   * the run cache does with it when it resumes — the evaluation a replay would make of the
   * wait as registered by an earlier turn. Without it (and without `recheck`), a turn waiting
   * there is not cached.
   */
  waitDurably(
    seq: number,
    wakeAt: number | null,
    label: string,
    pending: CheckpointRecord | null,
    message: string,
    recheck?: () => void,
    event?: EventWaitToRegister,
    onResume?: () => void,
  ): void
  /**
   * Read the event log for an event wait registered by an earlier turn, delivering the first
   * event reaching it into the inbox, then call `then` with that message (or null) — unless
   * the turn ended meanwhile. Work in progress until then.
   */
  catchUpEvent(
    wait: EventWaitToRegister,
    then: (message: { seq: number; payload: string } | null) => void,
  ): void
  /** The step registered under `name` on this engine (`ctx.step`), or undefined. */
  findStep(name: string): RegisteredStep | undefined
  /** Park the run with `reason`: it cannot go on safely here. The turn ends. */
  park(reason: ParkReason): Promise<void>
  /** Create a child run linked to this run's position (idempotent by child run id). */
  startChildRun(request: ChildRequest): Promise<ChildStart>
  /** Saga: remember how to undo a completed step, in the order results were delivered. */
  registerCompensation(stepName: string, undo: () => unknown): void
  /** Count work in progress (keeps the turn from suspending while > 0). */
  beginWork(): void
  endWork(): void
  /**
   * End the run `continued` and create its successor on `input` (codec text): the turn ends
   * here. Ignored once the turn has ended.
   */
  continueAsNew(input: string): void
  /** A never-settling promise for primitives called after the turn ended. */
  never<T>(): Promise<T>
}
