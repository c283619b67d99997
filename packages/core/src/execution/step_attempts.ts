/**
 * The attempts of one checkpointed step (local or registered): run the function, retry it per
 * policy, checkpoint the outcome. A failed attempt that will be retried is recorded (attempt
 * count and due time), so a crash does not reset the budget and a long back-off suspends the
 * run instead of holding its lease.
 */
import { runAsStep } from '../scope/current_context.ts'
import { AttemptLogs } from './attempt_logs.ts'
import { tracing } from './tracing_hooks.ts'
import type { SerializedError } from '../contracts/codec.ts'
import type { CheckpointKind, CheckpointRecord } from '../contracts/records.ts'
import { StepTimeoutError } from '../errors/index.ts'
import { serializeError } from '../codec/index.ts'
import { failpoint } from '../util/failpoints.ts'
import { longTimeout, MAX_TIME_MS } from '../util/numbers.ts'
import { encodeError, encodeValue } from './outcome.ts'
import { decideRetry, type RetryPolicy } from './retry_policy.ts'
import type { EncodedOutcome, StepRecordInput, TurnRuntime } from './runtime.ts'
import { QueueSlot, type QueueLane } from './step_queue.ts'
import type { StepContext, StepFn, StepLogger, StepProgress } from './types.ts'
import type { StepLogAppend } from '../contracts/step_logs.ts'
import { stepLogger } from '../step_logs/step_logger.ts'

/** How a step runs and retries; resolved before its position is taken (bad options throw). */
export interface AttemptPlan {
  fn: StepFn<unknown>
  policy: RetryPolicy
  timeoutMs: number | undefined
  /**
   * A registered step's input as the codec encoded it, recorded with each checkpoint the step
   * saves; null until encoded (or when it could not be). Absent for local steps (closures).
   */
  encodedInput?: () => string | null
  /** The queue each attempt takes a slot of (step_queue.ts); absent: none. */
  queue?: QueueLane
}

export interface StepPlan extends AttemptPlan {
  seq: number
  name: string
  kind: CheckpointKind
}

/** `attempt()` runs one attempt; a transactional step (transaction_step.ts) overrides it. */
export class StepAttempts {
  protected attempts: number
  private notBefore: number
  private readonly startedAt: number
  /** performance.now() as the current attempt began (events' durationMs). */
  private attemptStart = 0
  protected readonly rt: TurnRuntime
  protected readonly plan: StepPlan
  /** The step's queue, when it has one; `holding`: the current attempt holds its slot. */
  private readonly slot: QueueSlot | null
  private holding = false
  /** The current attempt's context (its lines go with the attempt's outcome). */
  private context: AttemptContext | null = null

  constructor(rt: TurnRuntime, plan: StepPlan, record: CheckpointRecord | undefined) {
    this.rt = rt
    this.plan = plan
    this.attempts = record?.attempts ?? 0
    // A queued step's `waiting` record has no due time: it waits for its grant, not a clock.
    this.notBefore = record?.wakeAt ?? 0
    this.startedAt = record?.startedAt ?? rt.clock.now()
    // A position with no record has no item in the store: its attempts may use a slot lease.
    this.slot =
      plan.queue === undefined
        ? null
        : new QueueSlot(rt, plan.seq, plan.queue, undefined, record === undefined)
  }

  /**
   * Callback style on purpose: this is the per-step hot path, and a synchronous step body
   * completes without a single extra promise.
   */
  run(): void {
    this.rt.beginWork()
    this.next()
  }

  private next(): void {
    // A compensating cancel lets in-flight attempts finish but starts no new one.
    if (!this.rt.live || this.rt.stopping) {
      this.slot?.endAttempt()
      return this.rt.endWork()
    }
    // A first attempt has no due time: the clock is read only for a retry's.
    if (this.notBefore > 0 && this.notBefore > this.rt.clock.now()) return this.waitForRetry()
    if (this.slot !== null && !this.holding) return this.acquireSlot(this.slot)
    // Never start user code on a lease that may have lapsed (turn_lease.ts); the check is one
    // clock read, and only a stale lease costs a closure and a store round trip.
    const checkedAt = this.rt.leaseFreshAt()
    if (checkedAt !== null) this.begin(checkedAt)
    else this.rt.whenLeaseHeld(() => this.next())
  }

  /** Take a slot of the step's queue for the next attempt, then go on (step_queue.ts). */
  private acquireSlot(slot: QueueSlot): void {
    const { release: _outcomesOnly, ...waiting } = this.step()
    slot.acquire(waiting, this.attempts + 1, {
      granted: (resumed) => {
        // Back from a wait: the attempt is work again, as when first started.
        if (resumed) this.rt.beginWork()
        this.holding = true
        this.next()
      },
      waiting: () => this.rt.endWork(),
      lost: () => this.rt.endWork(),
      refused: (error) => {
        // No attempt can be placed: the step fails for good, recorded (a replay answers so).
        this.rt.complete(this.outcomeStep(), {
          ok: false,
          error: encodeError(error, this.rt.codec),
        })
        this.emit('step:failed', () => serializeError(error))
        this.rt.endWork()
      },
    })
  }

  /** `leaseCheckedAt`: the monotonic time the lease was found fresh for this attempt. */
  private begin(leaseCheckedAt: number): void {
    this.attempts += 1
    if (this.rt.events.wants('step:started'))
      this.rt.events.emit('step:started', { ...this.ref(), leaseCheckedAt })
    failpoint('P4')
    this.attemptStart = performance.now()
    this.attempt()
  }

  /** Run one attempt; it ends in onSuccess or onFailure. */
  protected attempt(): void {
    if (this.plan.timeoutMs !== undefined) return void this.attemptWithTimeout(this.plan.timeoutMs)
    let value: unknown
    try {
      const step = this.stepContext(null)
      value = this.traced(() => runAsStep(step, () => this.plan.fn(step)))
    } catch (error) {
      return this.onFailure(error)
    }
    if (isThenable(value)) {
      value.then(
        (v) => this.onSuccess(v),
        (e: unknown) => this.onFailure(e),
      )
    } else this.onSuccess(value)
  }

  private async attemptWithTimeout(timeoutMs: number): Promise<void> {
    const { signal, done } = this.timeoutSignal(timeoutMs)
    try {
      const step = this.stepContext(signal)
      this.onSuccess(await this.traced(() => runAsStep(step, () => this.plan.fn(step))))
    } catch (error) {
      this.onFailure(signal.aborted && isTimeout(signal.reason) ? signal.reason : error)
    } finally {
      done()
    }
  }

  private onSuccess(value: unknown): void {
    if (this.rt.live) this.succeed(value)
    else this.late(encodeValue(value, this.rt.codec, `result of step "${this.plan.name}"`))
    this.slot?.endAttempt()
    this.rt.endWork()
  }

  protected onFailure(error: unknown): void {
    if (!this.rt.live) {
      this.late({ ok: false, error: encodeError(error, this.rt.codec) })
      this.slot?.endAttempt()
      return this.rt.endWork()
    }
    const durationMs = this.elapsed()
    const decision = decideRetry(error, this.attempts, this.plan.policy)
    const encoded = encodeError(error, this.rt.codec)
    if (!decision.retry) {
      this.rt.complete(this.outcomeStep(), { ok: false, error: encoded })
      this.slot?.endAttempt()
      this.emit('step:failed', () => serializeError(error))
      return this.rt.endWork()
    }
    // A RetryableError's retryAfterMs is the step's own number: kept within the Date range.
    this.notBefore = Math.min(MAX_TIME_MS, this.rt.clock.now() + decision.delayMs)
    const retrying = this.outcomeStep()
    this.slot?.endAttempt()
    void this.rt.saveRetrying(retrying, encoded, this.notBefore).then((saved) => {
      // The slot went back with the save: the retry asks for one again.
      this.holding = false
      if (!saved) return this.rt.endWork()
      this.emitRetried(error, decision.delayMs, durationMs)
      this.next()
    })
  }

  /** The current attempt's outcome is recorded: a slot it holds from a lease goes back. */
  protected attemptOver(): void {
    this.slot?.endAttempt()
  }

  /** The turn is over (the run was cancelled, or the lease lost): the turn decides what to keep. */
  private late(outcome: EncodedOutcome): void {
    this.rt.recordLate(this.step(), outcome)
    // Not on the late save (it is fenced by another rule): its lines go live.
    this.context?.finishLogsLive()
  }

  /**
   * Wait out the back-off here (short) or leave it to a later turn (long: the run suspends).
   * A back-off waited here ends in no write that would have learnt of a cancel made meanwhile
   * by another process, so the retry asks the store first: a cancelled run starts no retry.
   */
  private waitForRetry(): void {
    const label = `retry of step "${this.plan.name}"`
    const next = () => this.rt.confirmLease(() => this.next())
    // Fired late (the turn stayed busy): the attempt is work again, as when first started.
    const nextLater = () => {
      this.rt.beginWork()
      next()
    }
    const held = this.rt.waitUntil(this.plan.seq, this.notBefore, label, null, next, nextLater)
    if (!held) this.rt.endWork()
  }

  private succeed(value: unknown): void {
    const encoded = encodeValue(value, this.rt.codec, `result of step "${this.plan.name}"`)
    this.rt.complete(this.outcomeStep(), encoded)
    if (encoded.ok) this.emit('step:completed')
    else this.emit('step:failed', () => this.rt.codec.decode(encoded.error) as SerializedError)
  }

  private timeoutSignal(timeoutMs: number): { signal: AbortSignal; done: () => void } {
    const timeout = new AbortController()
    const cancel = longTimeout(timeoutMs, () =>
      timeout.abort(new StepTimeoutError(this.plan.name, timeoutMs)),
    )
    return { signal: AbortSignal.any([this.rt.signal, timeout.signal]), done: cancel }
  }

  protected stepContext(signal: AbortSignal | null): StepContext {
    this.context = new AttemptContext(this.rt, this.plan, this.attempts, signal)
    return this.context
  }

  /** The step's record for the save of an attempt's outcome: with the attempt's lines. */
  protected outcomeStep(): StepRecordInput {
    const step = this.step()
    const logs = this.finishedLogs()
    if (logs !== undefined) step.logs = logs
    return step
  }

  /** The current attempt is over: what it logged that is not stored yet. */
  protected finishedLogs(): StepLogAppend | undefined {
    return this.context?.finishLogs()
  }

  protected step(): StepRecordInput {
    return {
      seq: this.plan.seq,
      name: this.plan.name,
      kind: this.plan.kind,
      attempts: this.attempts,
      startedAt: this.startedAt,
      input: this.plan.encodedInput === undefined ? null : this.plan.encodedInput(),
      // Every outcome of a queued step gives its slot back in the save recording it — in the
      // store, unless the attempt holds a leased slot (no item: endAttempt gives it back).
      ...(this.slot === null || !this.slot.releasesInStore ? {} : { release: this.slot.queue }),
    }
  }

  protected emit(event: 'step:completed' | 'step:failed', error?: () => SerializedError): void {
    if (!this.rt.events.wants(event)) return
    const durationMs = this.elapsed()
    if (event === 'step:failed') {
      const serialized = (error as () => SerializedError)()
      this.rt.events.emit(event, { ...this.ref(), durationMs, error: serialized })
    } else this.rt.events.emit(event, { ...this.ref(), durationMs })
  }

  private emitRetried(error: unknown, delayMs: number, durationMs: number): void {
    if (!this.rt.events.wants('step:retried')) return
    const event = { ...this.ref(), durationMs, error: serializeError(error), delayMs }
    this.rt.events.emit('step:retried', event)
  }

  /** Call the step function inside the attempt's trace context, when tracing is installed. */
  protected traced<T>(call: () => T): T {
    const hooks = tracing.current
    return hooks === null ? call() : hooks.attempt(this.ref(), call)
  }

  /** Milliseconds since the current attempt began. */
  private elapsed(): number {
    return performance.now() - this.attemptStart
  }

  private ref() {
    const { runId, workflow, version } = this.rt
    return {
      runId,
      workflow,
      version,
      seq: this.plan.seq,
      name: this.plan.name,
      attempt: this.attempts,
    }
  }
}

/** What a step function receives. The turn's signal is only made when asked for. */
class AttemptContext implements StepContext {
  readonly runId: string
  readonly stepName: string
  readonly seq: number
  readonly attempt: number
  readonly #rt: TurnRuntime
  readonly #signal: AbortSignal | null
  /** Made on the first line or progress report: most steps never log. */
  #logs: AttemptLogs | null = null
  #logger: StepLogger | null = null
  /** The attempt's outcome was taken: later lines are written live. */
  #ended = false

  constructor(rt: TurnRuntime, plan: StepPlan, attempt: number, signal: AbortSignal | null) {
    this.runId = rt.runId
    this.stepName = plan.name
    this.seq = plan.seq
    this.attempt = attempt
    this.#rt = rt
    this.#signal = signal
  }

  get idempotencyKey(): string {
    return `${this.runId}/${this.seq}`
  }

  get signal(): AbortSignal {
    return this.#signal ?? this.#rt.signal
  }

  get log(): StepLogger {
    this.#logger ??= stepLogger((level, message, fields) =>
      this.#attemptLogs().log(level, message, fields),
    )
    return this.#logger
  }

  progress(value: StepProgress): void {
    this.#attemptLogs().progress(value)
  }

  /** The attempt's outcome is being saved: what it logged that is not stored yet. */
  finishLogs(): StepLogAppend | undefined {
    this.#ended = true
    return this.#logs?.finish()
  }

  /** The attempt ended with no save to carry its lines: they are written live. */
  finishLogsLive(): void {
    this.#ended = true
    this.#logs?.finishLive()
  }

  #attemptLogs(): AttemptLogs {
    if (this.#logs === null) {
      this.#logs = new AttemptLogs(this.#rt, this.seq, this.stepName, this.attempt)
      // First line after the attempt ended (code it left running): no save will carry it.
      if (this.#ended) this.#logs.finishLive()
    }
    return this.#logs
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  )
}

function isTimeout(reason: unknown): boolean {
  return StepTimeoutError.is(reason)
}
