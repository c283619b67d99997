/**
 * One turn of one run: execute the body under a lease until it finishes, or until every
 * live branch waits on something durable (then suspend), replaying recorded outcomes in
 * their original delivery order. Primitives talk to the turn through `TurnRuntime`;
 * writes go through the engine's group committer; outcomes reach the body through the
 * Deliverer, never before their checkpoint is durable.
 */
import type { Clock } from '../contracts/clock.ts'
import type { Codec } from '../contracts/codec.ts'
import type {
  CheckpointKind,
  CheckpointRecord,
  InboxMessage,
  ParkReason,
} from '../contracts/records.ts'
import type { Logger } from '../contracts/logger.ts'
import type { TaskToPublish, WithdrawOutcome } from '../contracts/transport.ts'
import type { TaskMessage } from '../wire/index.ts'
import type { SearchAttributeUpsert } from '../contracts/search_attributes.ts'
import type { StandardSchemaV1 } from '../contracts/standard_schema.ts'
import type {
  CreateRunOp,
  EventWaitToRegister,
  Fence,
  OpResult,
  QueueRequest,
  SaveCheckpointOp,
  StateStore,
  StoreOp,
} from '../contracts/state_store.ts'
import type { ChildRequest, ChildStart } from '../engine/child_starter.ts'
import type { Committer } from '../engine/committer.ts'
import type { EventHub } from '../engine/events.ts'
import { InvalidArgumentError, NonDeterminismError, type StepIdentity } from '../errors/index.ts'
import { failpoint } from '../util/failpoints.ts'
import type { Deliverer, DeliveryTarget } from './deliverer.ts'
import type { LiveResultHandler, LiveTasks } from './live_tasks.ts'
import type { LiveGrantHandler, LiveGrants } from './live_grants.ts'
import type { History } from './history.ts'
import { Inbox } from './inbox.ts'
import { catchUpOneWait } from './event_catch_up.ts'
import { saveLateOutcome } from './late_outcome.ts'
import { InboxWatch, type InboxWatchHost } from './inbox_watch.ts'
import { CANCEL_SIGNAL } from './wait_names.ts'
import { compensationStepName } from './compensation_name.ts'
import { localStep } from './local_step.ts'
import { DeliveryHold } from './delivery_hold.ts'
import { commitTransactional, type TransactionalHost } from './transactional_commit.ts'
import { decodeOutcome } from './outcome.ts'
import type { EncodedOutcome, StepRecordInput, TurnRuntime } from './runtime.ts'
import { resolveRetryPolicy, type RetryPolicy } from './retry_policy.ts'
import type { RetryOptions, SingletonOptions } from './types.ts'
import { TurnEnding, type TurnEnd } from './turn_end.ts'
import { TurnLease } from './turn_lease.ts'
import type { RegisteredStep } from '../engine/step_registry.ts'
import type { RegisteredQueue } from '../engine/queue_registry.ts'
import type { LeaseAnswer } from '../engine/slot_leases.ts'
import type { QueuePlacement } from './step_queue.ts'
import type { StepLogSink } from '../engine/step_log_sink.ts'
import { Fifo } from '../util/fifo.ts'
import type { StepLogAppend } from '../contracts/step_logs.ts'
import { DEFAULT_PRIORITY } from '../store/run_priority.ts'
import { RUN_SLOT_SEQ } from '../store/queue_check.ts'
import { holdRunSlot } from './run_slot.ts'
import { TurnWaits, type DurableWait } from './turn_waits.ts'
import { TurnWork } from './turn_work.ts'

export interface TurnDeps {
  /**
   * The create of the run's dead letter when it ends `failed` (engine/dead_letters.ts), or
   * null for none; written in the batch of the failing finish, before it.
   */
  deadLetter(
    run: { id: string; workflow: string; version: string; input: string; recoveries: number },
    error: string,
  ): CreateRunOp | null
  /** Creates a child run for `ctx.child` (engine/child_starter.ts). */
  startChild(request: ChildRequest): Promise<ChildStart>
  committer: Committer
  /** Where running steps' lines go live (engine/step_log_sink.ts). */
  stepLogs: StepLogSink
  /** Read directly by an ending turn: the event log, after a suspend with event waits. */
  store: StateStore
  logger: Logger
  deliverer: Deliverer
  codec: Codec
  clock: Clock
  events: EventHub
  /** Waits up to this long are kept in memory under the lease; longer ones suspend the run. */
  holdTimersUpToMs: number
  /** The engine's lease length: what a renewal asks for. */
  leaseMs: number
  /** The engine's monotonic clock: how long the lease has gone unconfirmed (turn_lease.ts). */
  monotonic: () => number
  /** The version `start` would pick for `workflow` (a successor runs the newest code). */
  newestVersion(workflow: string): string
  /** The singleton options of the workflow's newest version (a successor's admission). */
  singletonOf(workflow: string): SingletonOptions<unknown> | undefined
  /** Reads the run's unconsumed messages (a busy turn looking for new ones). */
  loadInbox(runId: string, afterSeq: number): Promise<InboxMessage[]>
  /** How often a busy turn with message waits reads its inbox (the engine's poll interval). */
  inboxPollMs: number
  /** Base of `ctx.webhook()` URLs, or null. */
  webhookUrl: string | null
  /** The registered step `ctx.step(name)` calls, or undefined. */
  findStep(name: string): RegisteredStep | undefined
  /** The queue `ctx.step(…, { queue })` names, as this engine registered it, or undefined. */
  findQueue(name: string): RegisteredQueue | undefined
  /** The transports this engine publishes remote steps' tasks on (by name). */
  hasTransport(name: string): boolean
  publishTask(transport: string, task: TaskToPublish): void
  /** Takes a task back if no worker received it (RemoteTransports.withdraw). */
  withdrawTask(transport: string, task: TaskMessage): Promise<WithdrawOutcome>
  /** What no live worker offers for a remote step (RemoteTransports.blockedReason). */
  blockedReason(transport: string, step: string, requires: readonly string[]): string | null
  /** Remote-step attempts whose results this engine hands to their live turn. */
  liveTasks: LiveTasks
  /** Queued steps waiting in memory, to which this engine hands the grants its writes make. */
  liveGrants: LiveGrants
  /**
   * A slot of `queue` from this engine's slot lease (engine/slot_leases.ts), answered now or
   * when one frees; null: ask the store (the durable line).
   */
  leaseSlot(
    queue: RegisteredQueue,
    priority: number,
    fairnessKey: string,
    answer: LeaseAnswer,
  ): void
  /** Another run became claimable at `at` (a queue grant this turn's write made): look now. */
  wakeEngine(at: number): void
  /** Grant these queues now: this run parked, freeing the slots it held (no write granted them). */
  grantFreed(queues: readonly string[]): void
  onEnded(turn: Turn, end: TurnEnd): void
  /**
   * The engine keeps suspended turns in memory (engine/run_cache.ts): a turn that can go on
   * after its suspend keeps its body paused there instead of freeing it.
   */
  cacheRuns: boolean
}

/** Which run a claim returned, as a cached turn compares it (Turn.canResume). */
export interface RunIdentity {
  workflow: string
  version: string
  createdAt: number
  input: string
}

/** What the claim that resumes a cached turn gave (Turn.resume). */
export interface ResumingClaim {
  /** RunRecord.leaseEpoch as claimed. */
  epoch: number
  /** Monotonic time the claim was sent (TurnRun.leaseGrantedAt). */
  leaseGrantedAt: number
  /** RunRecord.recoveries as claimed. */
  recoveries: number
}

export interface TurnRun {
  id: string
  workflow: string
  version: string
  epoch: number
  createdAt: number
  /** The run's inbox seq when it was claimed (0 for a run this engine just created). */
  inboxSeq: number
  /** Monotonic time (ResolvedEngineOptions.monotonic) the claim that granted this lease was sent. */
  leaseGrantedAt: number
  /** For a child run: the parent position its outcome goes to. */
  parentRunId?: string | null
  parentSeq?: number | null
  /** The singleton key the run holds a slot of (RunRecord.admission), or null/absent. */
  admission?: { scope: string; key: string } | null
  /** RunRecord.priority; absent: 0 (its successor and its children inherit it). */
  priority?: number
  /** RunRecord.queue: the queue the whole run holds a slot of (run_slot.ts); null/absent: none. */
  queue?: string | null
  /** The run's encoded input (for its dead letter); absent: none is built. */
  input?: string
  /** RunRecord.recoveries as claimed; absent: 0. */
  recoveries?: number
}

/** A workflow's execution timeout, anchored at the run's creation. */
export interface ExecutionLimit {
  timeoutMs: number
  deadline: number
}

interface Call {
  resolve(value: unknown): void
  reject(error: unknown): void
}

type BodyResult = { ok: true; value: unknown } | { ok: false; error: unknown }

/** The position handed out once a compensating cancel stops the body: never recorded. */
const STOPPED = -1

function cancelReason(payload: string, codec: Codec): { reason: string } {
  let decoded: { reason?: unknown } | null = null
  try {
    decoded = codec.decode(payload) as { reason?: unknown } | null
  } catch {
    // The cancel stands whatever its reason's text: an unreadable one is the default.
  }
  return { reason: typeof decoded?.reason === 'string' ? decoded.reason : 'run cancelled' }
}

interface Compensation {
  stepName: string
  undo: () => unknown
}

const NEVER = new Promise<never>(() => {})

export class Turn implements TurnRuntime, DeliveryTarget {
  readonly deliveryQueue = new Fifo<CheckpointRecord>()
  lastDeliveryTick = 0
  readonly runId: string
  readonly workflow: string
  readonly version: string
  readonly fence: Fence
  #lease: TurnLease
  readonly clock: Clock
  readonly codec: Codec
  readonly events: EventHub
  readonly retryDefaults: RetryOptions | undefined
  readonly searchAttributeSchema: StandardSchemaV1 | undefined
  readonly defaultRetryPolicy: RetryPolicy
  // Created on first use: most turns never look at their signal, and aborting costs.
  private abortController: AbortController | null = null
  private readonly calls = new Map<number, Call>()
  /** The durable waits and every timer of the turn (turn_waits.ts). */
  private readonly waits: TurnWaits
  private readonly inboxWatch: InboxWatch
  private readonly ending: TurnEnding
  private nextSeq = 0
  private nextOrder: number
  private recordedLeft: number
  private currentTime: number
  private readonly work: TurnWork
  /** Remote-step results this turn waits for in memory (holdForResult): how to release each. */
  private readonly resultHolds = new Set<() => void>()
  private readonly deps: TurnDeps
  private readonly history: History
  private readonly inbox: Inbox
  private readonly limit: ExecutionLimit | null
  private readonly compensations: Compensation[] = []
  /** Later outcomes waiting for a transactional step's (delivery_hold.ts). */
  private readonly hold = new DeliveryHold()
  /** A compensating cancel: the body gets no new position, completed steps are undone. */
  private cancelRequest: { reason: string } | null = null
  /** Starts the body that waits for the run's queue slot (run_slot.ts); null once started. */
  private gatedBody: (() => void) | null = null
  private unwinding = false
  /**
   * An event wait of this run was open during this turn, so one may be registered in the
   * store: a finish removes the run's registrations (otherwise it writes nothing more).
   */
  hasEventWaits = false
  /**
   * Queues in which a step of this run may hold an item (a queued step reached without its
   * outcome): a finish releases them in its write (FinishRunOp.releaseQueues).
   */
  readonly queuesUsed = new Set<string>()
  /** Where this run's outcome goes when it is a child; null for a top-level run. */
  readonly parent: { runId: string; seq: number } | null
  /** The singleton key whose slot this run holds, as the store gave it; null for none. */
  readonly admission: { scope: string; key: string } | null
  /** The run's claim priority (RunRecord.priority). */
  readonly priority: number
  /** The queue the whole run executes in (RunRecord.queue), or null. */
  readonly queue: string | null
  /** The run's encoded input when known (claimed or created here): for its dead letter. */
  readonly inputText: string | null
  /** RunRecord.createdAt: with the id and the input, which run this turn executes. */
  readonly createdAt: number
  #recoveries: number
  /** The renewal saying this (taken-over) run moved on has been sent. */
  private progressSaid = false

  constructor(
    deps: TurnDeps,
    run: TurnRun,
    history: History,
    retryDefaults: RetryOptions | undefined,
    inbox: Inbox = Inbox.empty(run.inboxSeq),
    limit: ExecutionLimit | null = null,
    searchAttributeSchema: StandardSchemaV1 | undefined = undefined,
  ) {
    this.deps = deps
    this.history = history
    this.inbox = inbox
    this.limit = limit
    const cancel = inbox.take(CANCEL_SIGNAL)
    if (cancel !== null) this.cancelRequest = cancelReason(cancel.payload, deps.codec)
    this.parent =
      run.parentRunId == null || run.parentSeq == null
        ? null
        : { runId: run.parentRunId, seq: run.parentSeq }
    this.admission = run.admission ?? null
    this.priority = run.priority ?? DEFAULT_PRIORITY
    this.queue = run.queue ?? null
    this.inputText = run.input ?? null
    this.createdAt = run.createdAt
    this.#recoveries = run.recoveries ?? 0
    this.runId = run.id
    this.workflow = run.workflow
    this.version = run.version
    this.fence = { runId: run.id, epoch: run.epoch }
    this.#lease = this.newLease(run.leaseGrantedAt)
    this.clock = deps.clock
    this.codec = deps.codec
    this.events = deps.events
    this.retryDefaults = retryDefaults
    this.searchAttributeSchema = searchAttributeSchema
    this.defaultRetryPolicy = defaultPolicyFor(retryDefaults)
    this.nextOrder = history.lastOrder + 1
    this.recordedLeft = history.deliveries.length
    this.currentTime = run.createdAt
    const ending = (this.ending = new TurnEnding(this, deps))
    this.work = new TurnWork(
      () => this.live,
      () => this.onIdle(),
    )
    this.waits = new TurnWaits(deps.clock, {
      get live() {
        return ending.live
      },
      afterTimer: () => this.work.checkSoon(),
    })
    this.inboxWatch = new InboxWatch(
      deps.clock,
      deps.inboxPollMs,
      // Only what came after the last message read: one range of the inbox, however long.
      () => deps.loadInbox(run.id, this.inbox.seen),
      this.inboxHost(),
    )
  }

  /**
   * The lease of this turn's current claim. Its loss ends the turn only while it is the
   * current one: a renewal of an earlier claim's lease, fenced by the suspend that ended it,
   * can answer after a resume (run cache) and must not stop the turn under its new lease.
   */
  private newLease(grantedAt: number): TurnLease {
    const leaseDeps = {
      committer: this.deps.committer,
      monotonic: this.deps.monotonic,
      leaseMs: this.deps.leaseMs,
      onLost: (reason: string) => {
        if (this.#lease === lease) this.lost(reason)
      },
    }
    const lease: TurnLease = new TurnLease(leaseDeps, { ...this.fence }, grantedAt)
    return lease
  }

  /** What this turn knows about its lease; renewed by the engine's LeaseKeeper. */
  get lease(): TurnLease {
    return this.#lease
  }

  /** RunRecord.recoveries as the claim that started (or resumed) this turn gave it. */
  get recoveries(): number {
    return this.#recoveries
  }

  get signal(): AbortSignal {
    this.abortController ??= new AbortController()
    return this.abortController.signal
  }

  get stepLogs(): StepLogSink {
    return this.deps.stepLogs
  }

  get live(): boolean {
    return this.ending.live
  }

  /**
   * The engine's own work for this turn is done: no write in flight, no outcome waiting to be
   * delivered (step bodies are the user's and may run as long as they like). Test harnesses
   * wait for this before moving a fake clock.
   */
  get quiet(): boolean {
    if (this.ending.catchingUp) return false // reading the event log after its suspend
    return !this.live || this.work.engineQuiet
  }

  get epoch(): number {
    return this.fence.epoch
  }

  /**
   * Start the body — once the run holds its queue's slot, for a run on a queue (`input`: the
   * run's decoded input, which the queue's fairness key may come from); recorded outcomes are
   * then delivered one per macrotask, in order.
   */
  begin(body: () => Promise<unknown>, input?: unknown): void {
    // Whatever ends this turn (a deadline already past, a cancel) gives the run's slot back.
    if (this.queue !== null) this.queuesUsed.add(this.queue)
    if (this.limit !== null && !this.armDeadline(this.limit)) return
    // A compensating cancel unwinds at once: replaying the body needs no slot.
    if (this.queue === null || this.cancelRequest !== null) return this.startBody(body)
    let started = false
    const go = (run: () => Promise<unknown>) => {
      if (started) return
      started = true
      this.gatedBody = null
      this.startBody(run)
    }
    this.gatedBody = () => go(body)
    holdRunSlot(this, this.queue, input, {
      start: () => go(body),
      fail: (error) => go(() => Promise.reject(error)),
    })
  }

  private startBody(body: () => Promise<unknown>): void {
    this.deps.deliverer.hold(this)
    for (const record of this.history.deliveries) {
      this.work.startEngine()
      this.deps.deliverer.push(this, record)
    }
    let result: Promise<unknown>
    try {
      result = body()
    } catch (error) {
      result = Promise.reject(error)
    }
    result.then(
      (value) => this.onBodySettled({ ok: true, value }),
      (error: unknown) => this.onBodySettled({ ok: false, error }),
    )
    this.work.checkSoon()
  }

  /**
   * Cancel the run when its execution deadline comes, during this turn or already past.
   * Not counted as work: a turn with nothing else to do suspends, waking at the deadline.
   */
  private armDeadline(limit: ExecutionLimit): boolean {
    const left = limit.deadline - this.clock.now()
    if (left <= 0) {
      void this.ending.timeOut(limit.timeoutMs)
      return false
    }
    this.waits.hold(left, () => void this.ending.timeOut(limit.timeoutMs))
    return true
  }

  /** Deterministic time for `ctx.now()`. */
  now(): number {
    return this.currentTime
  }

  /** -1 while stopping for a compensating cancel and the history has nothing more to replay. */
  takeSeq(): number {
    if (
      this.cancelRequest !== null &&
      !this.unwinding &&
      this.history.at(this.nextSeq) === undefined
    )
      return STOPPED
    // The last position is the run's own queue slot (run_slot.ts): no body gets that far.
    if (this.nextSeq >= RUN_SLOT_SEQ)
      throw new InvalidArgumentError(
        `a run takes at most ${RUN_SLOT_SEQ} positions; continue as new (ctx.continueAsNew) well before`,
      )
    return this.nextSeq++
  }

  /**
   * Call `start` when the lease is known to be held: at once while it is fresh, else after
   * confirming it with the store (turn_lease.ts). Lost: the turn has ended when `start` runs,
   * so `start` checks `live` first.
   */
  whenLeaseHeld(start: () => void): void {
    this.#lease.whenConfirmed(start)
  }

  leaseFreshAt(): number | null {
    return this.#lease.freshAt()
  }

  confirmLease(start: () => void): void {
    this.#lease.confirm(start)
  }

  /** No new attempt starts: a compensating cancel is stopping the body (compensations excepted). */
  get stopping(): boolean {
    return this.cancelRequest !== null && !this.unwinding
  }

  /**
   * Cancel with compensation, asked of this very turn (the engine that runs it got the
   * cancel): stop giving the body new positions, let what is in flight settle, then unwind.
   */
  requestCancel(reason: string): void {
    if (!this.live || this.cancelRequest !== null) return
    this.cancelRequest = { reason }
    // A remote step's result is not worth waiting for: the run unwinds now, a late result is
    // refused by the cancelled run.
    for (const release of [...this.resultHolds]) release()
    // Waiting for its queue's slot: the body replays now, so its compensations are known.
    this.gatedBody?.()
    this.work.checkSoon()
  }

  peekSeq(): number {
    return this.nextSeq
  }

  recordAt(seq: number): CheckpointRecord | undefined {
    return this.history.at(seq)
  }

  recorded(seq: number, name: string, kind: CheckpointKind): CheckpointRecord | undefined | null {
    if (seq === STOPPED) return null
    const record = this.history.at(seq)
    if (record === undefined || (record.name === name && record.kind === kind)) return record
    this.nonDeterminism(identity(record), { seq, name, kind })
    return null
  }

  awaitOutcome<T>(seq: number): Promise<T> {
    // The resolvers object is the call itself: one object less per step.
    const call = Promise.withResolvers<unknown>()
    this.calls.set(seq, call)
    return call.promise as Promise<T>
  }

  complete(
    step: StepRecordInput,
    outcome: EncodedOutcome,
    consumes?: number,
    searchAttributes?: SearchAttributeUpsert,
    onDurable?: (applied: boolean) => void,
  ): void {
    if (!this.live) return onDurable?.(false)
    const record = this.buildRecord(step, outcome.ok ? 'completed' : 'failed', this.nextOrder++)
    if (outcome.ok) record.output = outcome.output
    else record.error = outcome.error
    failpoint('P5')
    const op: StoreOp = { type: 'saveCheckpoint', fence: this.fence, checkpoint: record }
    if (consumes !== undefined) op.consumes = consumes
    if (searchAttributes !== undefined) op.searchAttributes = searchAttributes
    if (step.release !== undefined) op.release = step.release
    if (step.logs !== undefined) op.logs = step.logs
    this.write(
      op,
      (result) => {
        failpoint('P6')
        onDurable?.(true) // recorded (or an outcome was already there): nothing more to send
        const delivered = result.status === 'conflict' ? result.existing : record
        this.pushDelivery(record.order as number, delivered)
      },
      (result) => {
        onDurable?.(false)
        // Cancelled elsewhere while the step ran: record what it did, undelivered.
        if (isStepKind(step.kind) && consumes === undefined && result?.status === 'fenced')
          saveLateOutcome(this.deps.committer, record, this.fence.epoch, result)
      },
    )
  }

  /** A step finished after the turn ended: see late_outcome.ts. */
  recordLate(step: StepRecordInput, outcome: EncodedOutcome): void {
    const record = this.buildRecord(step, outcome.ok ? 'completed' : 'failed', null)
    if (outcome.ok) record.output = outcome.output
    else record.error = outcome.error
    saveLateOutcome(this.deps.committer, record, this.fence.epoch, null)
  }

  async saveRetrying(
    step: StepRecordInput,
    error: string,
    wakeAt: number,
    consumes?: number,
  ): Promise<boolean> {
    const record = this.buildRecord(step, 'retrying', null)
    record.error = error
    record.wakeAt = wakeAt
    const op = this.saveOp(record, consumes)
    if (step.release !== undefined) op.release = step.release
    if (step.logs !== undefined) op.logs = step.logs
    return this.saveUnfinished(op).then((result) => result !== null)
  }

  saveWaiting(step: StepRecordInput): Promise<boolean> {
    const op = this.saveOp(this.buildRecord(step, 'waiting', null))
    return this.saveUnfinished(op).then((result) => result !== null)
  }

  async saveQueued(step: StepRecordInput, request: QueueRequest): Promise<boolean | null> {
    const op = this.saveOp(this.buildRecord(step, 'waiting', null))
    op.enqueue = request
    const result = await this.saveUnfinished(op)
    if (result === null) return null
    return result.status === 'applied' && result.granted === true
  }

  noteQueue(queue: string): void {
    this.queuesUsed.add(queue)
  }

  findQueue(name: string): RegisteredQueue | undefined {
    return this.deps.findQueue(name)
  }

  leaseSlot(queue: RegisteredQueue, placement: QueuePlacement, answer: LeaseAnswer): void {
    this.deps.leaseSlot(queue, placement.priority, placement.fairnessKey, answer)
  }

  publishTask(transport: string, task: TaskToPublish): void {
    if (this.live) this.deps.publishTask(transport, task)
  }

  hasTransport(name: string): boolean {
    return this.deps.hasTransport(name)
  }

  blockedReason(transport: string, step: string, requires: readonly string[]): string | null {
    return this.deps.blockedReason(transport, step, requires)
  }

  withdrawTask(transport: string, task: TaskMessage): Promise<WithdrawOutcome> {
    return this.deps.withdrawTask(transport, task)
  }

  probeBlocked(seq: number, probe: () => string | null): void {
    const wait = this.waits.get(seq)
    if (wait !== undefined) wait.blockedProbe = probe
  }

  holdForResult(taskId: string, handler: LiveResultHandler): () => void {
    if (!this.live) return () => {}
    return this.holdRun(this.deps.liveTasks.register(taskId, handler))
  }

  holdForGrant(seq: number, handler: LiveGrantHandler): () => void {
    if (!this.live) return () => {}
    return this.holdRun(
      this.deps.liveGrants.register(this.runId, seq, (grant) => {
        // The grant message is read here, not from the inbox: the next suspend must not wake
        // the run for it.
        this.inbox.acknowledge(grant.inboxSeq)
        handler(grant)
      }),
    )
  }

  /**
   * Keep the run in memory (up to `holdTimersUpToMs`) while `unregister`'s handler may be
   * called; the returned function ends the hold early. The turn ending ends it too.
   */
  private holdRun(unregister: () => void): () => void {
    this.work.start()
    const release = (): void => {
      if (!this.resultHolds.delete(release)) return
      timer.cancel()
      unregister()
      this.work.end()
    }
    const timer = this.clock.setTimer(this.deps.holdTimersUpToMs, release)
    this.resultHolds.add(release)
    return release
  }

  clearWait(seq: number): void {
    this.waits.close(seq)
  }

  private saveOp(record: CheckpointRecord, consumes?: number): SaveCheckpointOp {
    const op: SaveCheckpointOp = { type: 'saveCheckpoint', fence: this.fence, checkpoint: record }
    if (consumes !== undefined) op.consumes = consumes
    return op
  }

  /**
   * Save a record that is not an outcome: its result once durable, null if the turn was lost
   * or the position already holds an outcome (then delivered instead).
   */
  private saveUnfinished(op: SaveCheckpointOp): Promise<OpResult | null> {
    const { promise, resolve } = Promise.withResolvers<OpResult | null>()
    this.write(
      op,
      (result) => {
        if (result.status !== 'conflict' || !isFinal(result.existing)) return resolve(result)
        // The position holds an outcome already: an attempt whose commit was reported lost
        // did land (a transactional step's COMMIT, say). That is the step's result: deliver it
        // and start no retry, which would run the function again for nothing.
        const existing = result.existing
        this.pushDelivery(existing.order ?? this.nextOrder++, existing)
        resolve(null)
      },
      () => resolve(null),
    )
    return promise
  }

  commitInTransaction(
    step: StepRecordInput,
    run: (handle: unknown) => Promise<string | null>,
    takeLogs?: () => StepLogAppend | undefined,
  ): Promise<boolean> {
    return commitTransactional(this.transactionalHost(), step, run, takeLogs)
  }

  /**
   * A step outcome was recorded: the run moved on. The next renewal says so (its recovery
   * count goes back to 0); a run that was taken over says it at once — a process that keeps
   * dying before its periodic renewal must not make a run that keeps moving on look poisoned.
   */
  private progressed(): void {
    this.#lease.noteProgress()
    if (this.#recoveries > 0 && !this.progressSaid) {
      this.progressSaid = true
      void this.#lease.renew()
    }
  }

  private transactionalHost(): TransactionalHost {
    return {
      fence: this.fence,
      store: this.deps.store,
      committer: this.deps.committer,
      isLive: () => this.live,
      reserveOrder: () => {
        const order = this.nextOrder++
        this.hold.reserve(order)
        return order
      },
      completedRecord: (step, output, order) => {
        const record = this.buildRecord(step, 'completed', order)
        record.output = output
        return record
      },
      settleReserved: (order, record) => {
        if (record !== null && this.live) {
          // A committed outcome: the run moved on (its recovery count goes back to 0).
          this.progressed()
          this.pushDelivery(order, record)
        }
        this.hold.release(order)
      },
      lost: (reason) => this.lost(reason),
    }
  }

  /** Hand `record` (recorded at delivery `order`) to the deliverer, after any earlier transactional outcome. */
  private pushDelivery(order: number, record: CheckpointRecord): void {
    this.work.startEngine() // the delivery is work until the body has seen it
    if (this.hold.idle) this.deps.deliverer.push(this, record)
    else this.hold.deliver(order, () => this.deps.deliverer.push(this, record))
  }

  saveMarker(step: StepRecordInput): void {
    if (step.seq === STOPPED) return
    const record = this.buildRecord(step, 'completed', null)
    this.write({ type: 'saveCheckpoint', fence: this.fence, checkpoint: record }, () => {})
  }

  waitUntil(
    seq: number,
    wakeAt: number,
    label: string,
    pending: CheckpointRecord | null,
    onDue: () => void,
    onDueLater?: () => void,
  ): boolean {
    const delay = wakeAt - this.clock.now()
    if (delay > this.deps.holdTimersUpToMs) {
      this.waits.open(seq, { wakeAt, label, pending }, onDueLater ?? onDue)
      return false
    }
    this.work.start()
    this.waits.hold(delay, () => {
      this.work.endQuietly()
      if (this.live) onDue()
      this.work.checkSoon()
    })
    return true
  }

  /** Re-evaluate the waits a message could end, now that new messages arrived. */
  private recheckWaits(): void {
    this.waits.recheckAll((seq, error) =>
      // A wait that cannot read what arrived for it: the turn cannot go on (unreadable).
      this.unreadable(`a message for position ${seq}`, error),
    )
    this.work.checkSoon()
  }

  /**
   * A message for this run was accepted in this process: a busy turn reads it now — unless
   * `name` says no open wait can take it (it stays in the inbox for a later wait, and a read
   * would cost the whole inbox for nothing).
   */
  inboxChanged(name?: string): void {
    if (name !== undefined && name !== CANCEL_SIGNAL && !this.waits.hasMessageWaits(name)) return
    if (this.waits.hasMessageWaits()) void this.inboxWatch.read()
  }

  private inboxHost(): InboxWatchHost {
    // eslint-disable-next-line @typescript-eslint/no-this-alias -- getters below read the turn
    const turn = this
    return {
      get live() {
        return turn.live
      },
      get hasMessageWaits() {
        return turn.waits.hasMessageWaits()
      },
      receive: (messages) => this.receiveMessages(messages),
      workStarted: () => this.work.startReading(),
      workEnded: () => this.work.endReading(),
    }
  }

  /** Messages read from the inbox: the new ones end the waits they can (a cancel first). */
  private receiveMessages(messages: readonly InboxMessage[]): void {
    if (this.inbox.addNewer(messages) === 0) return
    const cancel = this.inbox.take(CANCEL_SIGNAL)
    if (cancel !== null) this.requestCancel(cancelReason(cancel.payload, this.codec).reason)
    this.recheckWaits()
  }

  findStep(name: string): RegisteredStep | undefined {
    return this.deps.findStep(name)
  }

  catchUpEvent(
    wait: EventWaitToRegister,
    then: (message: { seq: number; payload: string } | null) => void,
  ): void {
    this.work.startEngine()
    void catchUpOneWait(this.deps, this.runId, wait)
      .catch((error: unknown) => {
        // Deciding without the log could time the wait out past a published event. Let the
        // turn go without a write instead: its lease expires, and the turn after reads again
        // (a failing store is retried a lease apart, never in a loop).
        this.deps.logger.error(
          { err: error, runId: this.runId },
          'cairn: reading the event log for a replayed wait failed; the run is retried after its lease',
        )
        this.lost(`event log read failed: ${String(error)}`)
        return undefined
      })
      .then((message) => {
        this.work.engineDone()
        if (message !== undefined && this.live) then(message)
        this.work.end()
      })
  }

  get webhookUrl(): string | null {
    return this.deps.webhookUrl
  }

  startChildRun(request: ChildRequest): Promise<ChildStart> {
    return this.deps.startChild(request)
  }

  registerCompensation(stepName: string, undo: () => unknown): void {
    this.compensations.push({ stepName, undo })
  }

  takeMessage(name: string): InboxMessage | null {
    return this.inbox.take(name)
  }

  waitDurably(
    seq: number,
    wakeAt: number | null,
    label: string,
    pending: CheckpointRecord | null,
    message: string,
    recheck?: () => void,
    event?: EventWaitToRegister,
    onResume?: () => void,
  ): void {
    const wait: DurableWait = { wakeAt, label, pending, message }
    if (recheck !== undefined) wait.recheck = recheck
    if (onResume !== undefined) wait.onResume = onResume
    if (event !== undefined) {
      wait.event = event
      this.hasEventWaits = true
    }
    this.waits.open(seq, wait, recheck)
    if (recheck !== undefined) this.inboxWatch.arm()
  }

  /** The highest inbox seq this turn has read: a suspend that missed a later one wakes at once. */
  get inboxSeen(): number {
    return this.inbox.seen
  }

  beginWork(): void {
    this.work.start()
  }

  endWork(): void {
    this.work.end()
  }

  never<T>(): Promise<T> {
    return NEVER
  }

  continueAsNew(input: string): void {
    if (!this.live) return
    if (this.recordedLeft > 0) {
      // The history goes on past this point: the code took another path than it did.
      const next = this.history.deliveries[this.history.deliveries.length - this.recordedLeft]
      this.nonDeterminism(next === undefined ? null : identity(next), null)
      return
    }
    void this.ending.continueAsNew(input)
  }

  /** Stop here because the run was cancelled (by this or another process). */
  cancelled(): void {
    this.ending.stop({ kind: 'cancelled' })
  }

  /** Park the run with `reason` (it cannot go on safely). */
  park(reason: ParkReason): Promise<void> {
    return this.ending.park(reason)
  }

  /** Hand the run back to the store (drain), releasing the lease at once: its id once done. */
  async release(): Promise<string | null> {
    return (await this.ending.release()) ? this.runId : null
  }

  /**
   * A recorded outcome the codec cannot read (a row damaged outside Cairn, a codec or key
   * changed under stored payloads): the run cannot go on here. The turn stops without writing
   * and without handing the run back, so its lease lapses and the next claim counts as a
   * takeover: after `maxRecoveryAttempts` of them the run ends `dead` with the reason, its
   * history never loaded again (engine/dead_runs.ts) — a bounded retry, never a crash or a loop.
   */
  unreadable(what: string, error: unknown): void {
    if (!this.live) return
    const reason = `${what} cannot be decoded: ${String(error)}`
    this.deps.logger.error({ err: error, runId: this.runId }, `cairn: ${reason}`)
    this.lost(reason)
  }

  /** The lease is gone (fenced write or failed renewal): stop without writing anything. */
  lost(reason: string): void {
    this.ending.stop({ kind: 'lost', reason })
  }

  /** Called by `TurnEnding` when the turn is over: free everything it holds. */
  dispose(reason: () => unknown): void {
    this.pause()
    for (const release of [...this.resultHolds]) release()
    this.deps.deliverer.forget(this)
    this.hold.clear()
    this.calls.clear()
    this.waits.clear()
    if (this.abortController !== null && !this.abortController.signal.aborted)
      this.abortController.abort(reason())
  }

  /**
   * This turn may be kept in memory once it suspends, its body paused where it waits
   * (engine/run_cache.ts), because a later claim can resume it exactly as a busy turn would
   * have gone on: the engine caches runs; every open wait is one a message or its own timer
   * ends in this turn (TurnWaits.resumable); the run holds no queue item (a park or an
   * unpark drops items and grants without moving the lease epoch, and a resumed turn would
   * not ask again: such runs replay); no cancel is unwinding. Read when the turn is idle.
   */
  get resumable(): boolean {
    if (!this.deps.cacheRuns || !this.waits.resumable) return false
    if (this.queuesUsed.size > 0 || this.gatedBody !== null) return false
    return this.cancelRequest === null && !this.unwinding
  }

  /** Stop every timer and watch, keeping the body, its waits and calls (a suspend kept in memory). */
  pause(): void {
    this.waits.pause()
    this.inboxWatch.stop()
  }

  /**
   * The suspend that kept this turn applied: the `waiting` records it wrote are durable, so a
   * later suspend of this turn does not write them again.
   */
  suspendedDurably(): void {
    this.waits.markDurable()
  }

  /**
   * Whether the claimed `run` is the one this cached turn left, with nothing but messages
   * changed since. The same run: the id (the cache's key), creation time, input, workflow and
   * version — a run deleted and started again under its id is another run, whose epochs count
   * from 0 again. Nothing but messages: the claim is the only one since the suspend this turn
   * wrote. Every claim, cancel and requeue moves the lease epoch by one, and a checkpoint is
   * only written under the epoch of a running lease, so with the epoch exactly one above this
   * turn's no other turn ran and no operator cancelled or requeued it; and its inbox counter
   * (which only grows) has not gone below what the turn read. Anything else makes this turn
   * stale: the run replays from the store.
   */
  canResume(run: RunIdentity & { leaseEpoch: number; inboxSeq: number }): boolean {
    if (run.workflow !== this.workflow || run.version !== this.version) return false
    if (run.createdAt !== this.createdAt || run.input !== this.inputText) return false
    if (run.inboxSeq < this.inbox.seen) return false
    return run.leaseEpoch === this.fence.epoch + 1
  }

  /**
   * Whether `messages` (the run's inbox, read to resume this turn) hold a compensating cancel
   * it has not seen. Such a run replays instead: a replay stops the body at the first position
   * its history lacks, so the compensations take the positions from there — a resumed body
   * holds the position of the wait it was in, and would record them one further, where a
   * later replay of an interrupted unwind would not find them.
   */
  cancelledIn(messages: readonly InboxMessage[]): boolean {
    return messages.some((m) => m.name === CANCEL_SIGNAL && m.seq > this.inbox.seen)
  }

  /**
   * Go on under a new lease (`claim`) from where the body waits: `messages` are the run's
   * unconsumed inbox (read when the claim said it holds ones this turn has not seen). Timers
   * whose time passed while the run waited fire now, messages end the waits they can, and a
   * turn with nothing to do suspends again — as a turn that had stayed busy would have.
   */
  resume(claim: ResumingClaim, messages: readonly InboxMessage[]): void {
    this.fence.epoch = claim.epoch
    this.#lease = this.newLease(claim.leaseGrantedAt)
    this.#recoveries = claim.recoveries
    this.progressSaid = false
    this.ending.reopen()
    if (this.limit !== null && !this.armDeadline(this.limit)) return
    // A cancel among them sent the run to a replay instead (cancelledIn, checked first).
    this.inbox.addNewer(messages)
    this.waits.resume((seq, error) => this.unreadable(`a message for position ${seq}`, error))
    if (this.waits.hasMessageWaits()) this.inboxWatch.arm()
    this.work.checkSoon()
  }

  private buildRecord(
    step: StepRecordInput,
    status: CheckpointRecord['status'],
    order: number | null,
  ): CheckpointRecord {
    const now = this.clock.now()
    return {
      runId: this.runId,
      seq: step.seq,
      name: step.name,
      kind: step.kind,
      status,
      attempts: step.attempts,
      order,
      input: step.input ?? null,
      output: null,
      error: null,
      wakeAt: step.wakeAt ?? null,
      startedAt: step.startedAt,
      updatedAt: now,
      worker: step.worker ?? null,
    }
  }

  /** Queue a fenced write; `onApplied` runs once it is durable, unless the turn ended. */
  private write(
    op: StoreOp,
    onApplied: (result: OpResult) => void,
    onNotApplied?: (result?: OpResult) => void,
  ): void {
    this.work.startEngine()
    this.deps.committer.submit(
      op,
      (result) => {
        this.work.engineDone()
        if (result.status === 'applied' && isStepOutcome(op)) this.progressed()
        // A queue slot this write gave back went to a waiting run: it is claimable now.
        if (result.status === 'applied' && result.promoted === true)
          this.deps.wakeEngine(this.clock.now())
        this.afterWrite(result, onApplied, onNotApplied)
      },
      (error: unknown) => {
        this.work.engineDone()
        onNotApplied?.()
        this.lost(`write failed: ${String(error)}`)
      },
    )
  }

  private afterWrite(
    result: OpResult,
    onApplied: (result: OpResult) => void,
    onNotApplied?: (result?: OpResult) => void,
  ): void {
    if (result.status === 'fenced') {
      onNotApplied?.(result)
      this.lost(`lease epoch ${this.epoch} fenced (run is ${result.current?.status ?? 'gone'})`)
      return
    }
    if (!this.live) return onNotApplied?.()
    onApplied(result)
    this.endWork()
  }

  /** Called by the deliverer: a recorded outcome (replay) or one this turn just committed. */
  receive(record: CheckpointRecord): void {
    if (record.order !== null && record.order <= this.history.lastOrder)
      this.deliverRecorded(record)
    else this.deliverLive(record)
  }

  private deliverRecorded(record: CheckpointRecord): void {
    this.work.delivered()
    this.recordedLeft -= 1
    if (!this.calls.has(record.seq)) {
      this.nonDeterminism(identity(record), null)
      return
    }
    this.settle(record)
  }

  private deliverLive(record: CheckpointRecord): void {
    this.work.delivered()
    this.settle(record)
  }

  private settle(record: CheckpointRecord): void {
    const call = this.calls.get(record.seq)
    if (call === undefined || !this.live) return
    this.calls.delete(record.seq)
    this.currentTime = record.updatedAt
    let outcome: ReturnType<typeof decodeOutcome>
    try {
      outcome = decodeOutcome(record, this.codec)
    } catch (error) {
      return this.unreadable(
        `the recorded outcome at position ${record.seq} ("${record.name}")`,
        error,
      )
    }
    if (outcome.ok) call.resolve(outcome.value)
    else call.reject(outcome.error)
    // The idle check comes from the deliverer (afterDrain), once the body has reacted.
  }

  afterDrain(): void {
    this.work.checkSoon()
  }

  private onBodySettled(result: BodyResult): void {
    if (!this.live) return
    if (this.cancelRequest !== null) return void this.cancelAndUnwind(this.cancelRequest.reason)
    // Saga: a failed run first undoes its completed steps, newest first, each one recorded.
    if (!result.ok && this.compensations.length > 0) return void this.unwind(result)
    this.finishBody(result)
  }

  private async unwind(result: BodyResult): Promise<void> {
    await this.compensate()
    if (this.live) this.finishBody(result)
  }

  /** Undo completed steps, newest first; each compensation is a recorded step. */
  private async compensate(): Promise<void> {
    this.unwinding = true
    const undo = this.compensations.splice(0).reverse()
    for (const { stepName, undo: fn } of undo) {
      if (!this.live) return
      // A failed compensation is recorded (failed checkpoint) and the others still run.
      await localStep(this, compensationStepName(stepName), fn).catch(() => undefined)
    }
  }

  private async cancelAndUnwind(reason: string): Promise<void> {
    if (this.unwinding) return
    await this.compensate()
    if (this.live) await this.ending.cancelWith(reason)
  }

  private finishBody(result: BodyResult): void {
    if (this.recordedLeft > 0) {
      const next = this.history.deliveries[this.history.deliveries.length - this.recordedLeft]
      this.nonDeterminism(next === undefined ? null : identity(next), null)
      return
    }
    void this.ending.finish(result)
  }

  /** Nothing is left to do in this turn: unwind a cancel, or suspend on the open waits. */
  private onIdle(): void {
    if (this.cancelRequest !== null) void this.cancelAndUnwind(this.cancelRequest.reason)
    else void this.ending.suspend(this.waits.all, this.limit?.deadline ?? null)
  }

  private nonDeterminism(recorded: StepIdentity | null, attempted: StepIdentity | null): void {
    const error = new NonDeterminismError(
      describeMismatch(recorded, attempted),
      recorded,
      attempted,
    )
    const reason: ParkReason = {
      code: error.code,
      message: error.message,
      details: { recorded, attempted },
    }
    void this.ending.park(reason)
  }
}

const policyCache = new WeakMap<RetryOptions, RetryPolicy>()
const basePolicy = resolveRetryPolicy()

function defaultPolicyFor(defaults: RetryOptions | undefined): RetryPolicy {
  if (defaults === undefined) return basePolicy
  let policy = policyCache.get(defaults)
  if (policy === undefined) policyCache.set(defaults, (policy = resolveRetryPolicy({}, defaults)))
  return policy
}

function identity(record: CheckpointRecord): StepIdentity {
  return { seq: record.seq, name: record.name, kind: record.kind }
}

function describeMismatch(recorded: StepIdentity | null, attempted: StepIdentity | null): string {
  const show = (s: StepIdentity | null) => (s === null ? 'nothing' : `${s.kind} "${s.name}"`)
  const seq = recorded?.seq ?? attempted?.seq
  if (attempted === null) {
    return `history records ${show(recorded)} at position ${seq}, but the workflow code never asked for it (it finished or waits on something else)`
  }
  return `position ${seq}: history records ${show(recorded)}, the workflow code asked for ${show(attempted)}`
}

function isFinal(record: CheckpointRecord): boolean {
  return record.status === 'completed' || record.status === 'failed'
}

/** Steps whose outcome, arriving after a cancel, is kept for the timeline (late_outcome.ts). */
function isStepKind(kind: CheckpointKind): boolean {
  return kind === 'local' || kind === 'transaction'
}

/** A recorded step outcome: the run moved on (TurnLease.noteProgress). */
function isStepOutcome(op: StoreOp): boolean {
  if (op.type !== 'saveCheckpoint') return false
  return op.checkpoint.status === 'completed' || op.checkpoint.status === 'failed'
}
