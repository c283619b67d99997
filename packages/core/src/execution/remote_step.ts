/**
 * A registered step placed on a transport (docs/design/remote_steps.md): a durable wait on an
 * inbox message, like a signal wait.
 *
 * An attempt is dispatched by saving the position's `waiting` checkpoint (attempt number,
 * encoded input, the next check time) — the outbox — and, once that is durable, publishing its
 * task. A result arrives as message `cairn:task:<seq>` (accepted once per task id, refused by a
 * finished run); this turn records it: completed, or failed and retried by the step's policy
 * (a `retrying` checkpoint, then the next attempt at its due time), or failed for good. A result
 * of another attempt (a fenced, late one) is ignored. With no result by the check time the task
 * is published again — the transport deduplicates by task id — and checks follow at 10 s, 20 s,
 * 40 s, … after the dispatch (every MAX_CHECK_MS at most), so a task lost between the save and
 * the publish, or by a broker that restarted empty, is sent again.
 *
 * A step on a named queue (step_queue.ts) dispatches each attempt only once it holds one of
 * the queue's slots: before the dispatch, the position's `waiting` record asks for one (that
 * record has no check time: nothing is published yet), and the outcome's save gives it back.
 * So a queue bounds the attempts running on the whole fleet of workers.
 */
import { PickupTimeoutError, StepTimeoutError } from '../errors/index.ts'
import { timeText } from '../util/time_text.ts'
import type { CheckpointRecord, StepWorker } from '../contracts/records.ts'
import { parseWireMessage, type ResultMessage, type TaskMessage } from '../wire/index.ts'
import { appendOfReport } from '../wire/step_log_wire.ts'
import type { StepLogAppend } from '../contracts/step_logs.ts'
import { encodeError, encodeValue } from './outcome.ts'
import { decideRetry, type RetryPolicy } from './retry_policy.ts'
import { errorFromWire, taskMessage, taskResultName } from './remote_task.ts'
import { emitDispatched, emitOutcome, type RemoteAttemptRef } from './remote_step_events.ts'
import type { StepRecordInput, TurnRuntime } from './runtime.ts'
import { QueueSlot, type QueueLane } from './step_queue.ts'

/** How a failed attempt is settled: what it consumes, who to tell, what the worker said. */
interface FailedAttempt {
  durationMs: number
  /** The inbox message the outcome consumes (none on the live path or at a timeout). */
  messageSeq?: number | undefined
  onDurable?: ((recorded: boolean) => void) | undefined
  /** The worker said never retry (FatalError). */
  permanent?: boolean
  /** The worker's wire `retryAfterMs`. */
  floorMs?: number
  /** Who ran the attempt (its result's worker), recorded with the outcome. */
  worker?: StepWorker | null
  /** The lines its result carried, saved with the outcome. */
  logs?: StepLogAppend | undefined
}

/** First check after a dispatch; each later one doubles the interval, up to MAX_CHECK_MS. */
export const FIRST_CHECK_MS = 10_000
export const MAX_CHECK_MS = 600_000
/** A worker aborts at `timeoutMs`; its result may still be on the way: the engine waits this much longer. */
export const TIMEOUT_GRACE_MS = 5_000
/** How often a worker heartbeats a running attempt. */
export const HEARTBEAT_INTERVAL_MS = 5_000

export interface RemotePlan {
  name: string
  transport: string
  /** Capabilities a worker needs for the task (sorted), carried by every attempt's task. */
  requires: readonly string[]
  input: unknown
  policy: RetryPolicy
  timeoutMs: number | undefined
  /** How long a task may wait to be picked up (StepPlacement.pickupTimeoutMs), if limited. */
  pickupTimeoutMs: number | undefined
  /** The queue each attempt takes a slot of before its dispatch; absent: none. */
  queue?: QueueLane
}

export function remoteStep<O>(rt: TurnRuntime, plan: RemotePlan): Promise<O> {
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, plan.name, 'step')
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<O>(seq)
  if (record?.status === 'completed' || record?.status === 'failed') return outcome
  new RemoteWait(rt, seq, plan, record).begin()
  return outcome
}

class RemoteWait {
  private readonly rt: TurnRuntime
  private readonly seq: number
  private readonly plan: RemotePlan
  private readonly record: CheckpointRecord | undefined
  private readonly resultName: string
  private attempt = 0
  private startedAt = 0
  private checkAt = 0
  private input: string | null = null
  /** The outcome is being recorded (from the inbox or handed over live): nothing more to do. */
  private settled = false
  /** Ends this turn's in-memory hold for the current attempt's result (holdForResult). */
  private releaseHold: (() => void) | null = null
  /**
   * The lease epoch of the turn that found the current attempt's task picked up (or in which
   * the transport could not tell): its pickup deadline needs no more checking in that turn. A
   * later turn asks again once — a replayed one, or this very object resumed from the run
   * cache under a new epoch. Null: not found yet.
   */
  private pickedUpIn: number | null = null
  /** A withdrawal is in flight: evaluations wait for its answer. */
  private withdrawing = false
  /** The step's queue, when it has one: each attempt is dispatched once it holds a slot. */
  private readonly slot: QueueSlot | null

  constructor(
    rt: TurnRuntime,
    seq: number,
    plan: RemotePlan,
    record: CheckpointRecord | undefined,
  ) {
    this.rt = rt
    this.seq = seq
    this.plan = plan
    this.record = record
    this.resultName = taskResultName(seq)
    this.slot = plan.queue === undefined ? null : new QueueSlot(rt, seq, plan.queue)
  }

  begin(): void {
    const record = this.record
    if (record === undefined) return this.encodeAndDispatch()
    this.input = record.input
    this.attempt = record.attempts
    this.startedAt = record.startedAt
    if (record.status === 'retrying') return this.waitForRetry(record.wakeAt ?? this.rt.clock.now())
    // A queued step's record before its dispatch has no check time: it waits for its slot.
    if (this.slot !== null && record.wakeAt === null) return this.next(record.attempts + 1)
    this.checkAt = record.wakeAt ?? this.rt.clock.now()
    this.evaluate()
  }

  private encodeAndDispatch(): void {
    const encoded = encodeValue(this.plan.input, this.rt.codec, `input of step "${this.plan.name}"`)
    if (!encoded.ok) {
      // The input cannot travel: no attempt can ever run (E_NOT_SERIALIZABLE, not retried).
      this.rt.complete(this.step(1, null), encoded)
      return
    }
    this.input = encoded.output ?? this.rt.codec.encode(null)
    this.next(1)
  }

  /** Attempt `attempt`: dispatched at once, or once it holds a slot of the step's queue. */
  private next(attempt: number): void {
    if (this.slot === null) return this.dispatch(attempt)
    const now = this.rt.clock.now()
    const waiting: StepRecordInput = {
      seq: this.seq,
      name: this.plan.name,
      kind: 'step',
      attempts: attempt - 1,
      startedAt: now,
      wakeAt: null,
      input: this.input,
    }
    this.slot.acquire(waiting, attempt, {
      granted: () => this.dispatch(attempt),
      waiting: () => {},
      lost: () => {},
      // No attempt can be placed in the queue: the step fails for good, recorded.
      refused: (error) =>
        this.rt.complete(this.step(attempt - 1, null), {
          ok: false,
          error: encodeError(error, this.rt.codec),
        }),
    })
  }

  /** Save the attempt's waiting checkpoint (the outbox); once durable, publish its task. */
  private dispatch(attempt: number): void {
    const now = this.rt.clock.now()
    this.attempt = attempt
    this.pickedUpIn = null
    this.startedAt = now
    this.checkAt = now + FIRST_CHECK_MS
    this.saveAndPublish(true)
  }

  /**
   * Save the waiting checkpoint (attempt, next check); once durable, publish and wait on.
   * `hold`: a fresh attempt keeps the run in memory for a quick result (holdForResult); a
   * check's republish does not — a result is late by then, and the run suspends.
   */
  private saveAndPublish(hold: boolean): void {
    this.rt.beginWork()
    void this.rt.saveWaiting(this.step(this.attempt, this.checkAt)).then((saved) => {
      this.rt.endWork()
      if (!saved || !this.rt.live) return
      this.publish(hold)
      this.evaluate()
    })
  }

  /** The current attempt's task: the same message every time (publish, republish, withdraw). */
  private task(): TaskMessage {
    return taskMessage({
      runId: this.rt.runId,
      seq: this.seq,
      attempt: this.attempt,
      step: this.plan.name,
      requires: this.plan.requires,
      input: this.input as string,
      timeoutMs: this.plan.timeoutMs ?? null,
      heartbeatIntervalMs: HEARTBEAT_INTERVAL_MS,
      dispatchedAt: this.startedAt,
    })
  }

  private publish(hold: boolean): void {
    const task = this.task()
    this.rt.publishTask(this.plan.transport, { message: task, delayMs: 0 })
    emitDispatched(this.rt, this.ref(), {
      transport: this.plan.transport,
      taskId: task.taskId,
      republished: !hold,
    })
    if (hold) this.releaseHold = this.rt.holdForResult(task.taskId, this.acceptLive)
  }

  /**
   * The engine consumed this attempt's result while the turn holds the run: record it now, in
   * the position's checkpoint (one write, no inbox message). Resolves whether it was recorded.
   */
  private acceptLive = (result: ResultMessage): Promise<boolean> => {
    const mine =
      result.runId === this.rt.runId && result.seq === this.seq && result.attempt === this.attempt
    if (!this.rt.live || this.settled || !mine) return Promise.resolve(false)
    const { promise, resolve } = Promise.withResolvers<boolean>()
    this.rt.clearWait(this.seq)
    this.settle(result, undefined, resolve)
    this.releaseHold?.()
    this.releaseHold = null
    return promise
  }

  /** Now, and again whenever a message for this position arrives or a check or deadline comes. */
  private evaluate = (): void => {
    if (!this.rt.live || this.settled || this.withdrawing) return
    for (let message = this.rt.takeMessage(this.resultName); message !== null;) {
      const result = this.resultOf(message.payload)
      if (result !== null && result.attempt === this.attempt)
        return this.settle(result, message.seq)
      message = this.rt.takeMessage(this.resultName) // another attempt's (late) result: ignored
    }
    const now = this.rt.clock.now()
    const deadline = this.deadline()
    if (deadline !== null && now >= deadline) {
      const timedOut = new StepTimeoutError(this.plan.name, this.plan.timeoutMs as number)
      return this.failed(timedOut, { durationMs: now - this.startedAt })
    }
    const pickupAt = this.pickupAt()
    if (pickupAt !== null && now >= pickupAt) return this.checkPickup()
    if (now >= this.checkAt) return this.check(now)
    let wakeAt = deadline === null ? this.checkAt : Math.min(this.checkAt, deadline)
    if (pickupAt !== null) wakeAt = Math.min(wakeAt, pickupAt)
    this.rt.waitDurably(this.seq, wakeAt, this.label(), null, this.resultName, this.evaluate)
    const { transport, name, requires } = this.plan
    this.rt.probeBlocked(this.seq, () => this.rt.blockedReason(transport, name, requires))
  }

  /**
   * No result by the check time: publish again, and check again after as long as the attempt
   * has waited so far (checks at 10 s, 20 s, 40 s, … after the dispatch), at most MAX_CHECK_MS.
   */
  private check(now: number): void {
    const interval = Math.min(MAX_CHECK_MS, Math.max(FIRST_CHECK_MS, now - this.startedAt))
    this.checkAt = now + interval
    this.saveAndPublish(false)
  }

  /** `onDurable`: told whether the outcome was recorded (the live path acknowledges by it). */
  private settle(
    result: ResultMessage,
    messageSeq: number | undefined,
    onDurable?: (recorded: boolean) => void,
  ): void {
    this.settled = true
    // The worker's own measure of the attempt (its clock): start to finish.
    const durationMs = result.finishedAt - result.startedAt
    const worker = workerOf(result)
    const logs = this.logsOf(result)
    if (result.outcome.status === 'completed') {
      emitOutcome(this.rt, this.ref(), { kind: 'completed', durationMs })
      this.rt.complete(
        this.outcome(worker, logs),
        { ok: true, output: result.outcome.output },
        messageSeq,
        undefined,
        onDurable,
      )
      return
    }
    const error = errorFromWire(result.outcome.error, this.rt.codec)
    this.failed(error, {
      messageSeq,
      onDurable,
      durationMs,
      permanent: result.outcome.error.retryable === false,
      worker,
      logs,
      // A worker in another language asks for its delay on the wire, whatever its error's class.
      floorMs: result.outcome.error.retryAfterMs ?? 0,
    })
  }

  private failed(error: unknown, how: FailedAttempt): void {
    this.settled = true
    const encoded = encodeError(error, this.rt.codec)
    const decision = how.permanent
      ? { retry: false as const }
      : decideRetry(error, this.attempt, this.plan.policy, how.floorMs ?? 0)
    if (!decision.retry) {
      emitOutcome(this.rt, this.ref(), { kind: 'failed', durationMs: how.durationMs, error })
      this.rt.complete(
        this.outcome(how.worker, how.logs),
        { ok: false, error: encoded },
        how.messageSeq,
        undefined,
        how.onDurable,
      )
      return
    }
    const { delayMs } = decision
    emitOutcome(this.rt, this.ref(), {
      kind: 'retried',
      durationMs: how.durationMs,
      error,
      delayMs,
    })
    // The failed attempt's result message (inbox path) is consumed with the retrying save.
    const retryAt = this.rt.clock.now() + delayMs
    this.rt.beginWork()
    const retrying = this.outcome(how.worker, how.logs)
    void this.rt.saveRetrying(retrying, encoded, retryAt, how.messageSeq).then((saved) => {
      this.rt.endWork()
      how.onDurable?.(saved)
      if (!saved || !this.rt.live) return
      this.settled = false // the next attempt's wait
      this.waitForRetry(retryAt)
    })
  }

  /** A short back-off is held in memory (holdTimersUpToMs), a long one suspends the run. */
  private waitForRetry(retryAt: number): void {
    if (this.rt.clock.now() >= retryAt) return this.next(this.attempt + 1)
    const next = (): void => this.next(this.attempt + 1)
    this.rt.waitUntil(this.seq, retryAt, this.label(), null, next)
  }

  /** When the current attempt's task must have been picked up, while that is still unknown. */
  private pickupAt(): number | null {
    if (this.plan.pickupTimeoutMs === undefined || this.pickedUpIn === this.rt.fence.epoch)
      return null
    return this.startedAt + this.plan.pickupTimeoutMs
  }

  /**
   * The pickup deadline passed without a result: take the task back if no worker received it
   * (then the attempt fails E_PICKUP_TIMEOUT, and no worker will ever start it); otherwise it
   * was picked up — or the transport cannot tell (completed, lost, unreachable) — and the wait
   * goes on as any other, its checks republishing what a broker lost.
   */
  private checkPickup(): void {
    this.withdrawing = true
    this.rt.beginWork()
    const done = (outcome: 'withdrawn' | 'taken' | 'unknown'): void => {
      this.rt.endWork()
      this.withdrawing = false
      if (!this.rt.live || this.settled) return
      if (outcome === 'withdrawn') {
        const { name, transport, pickupTimeoutMs } = this.plan
        const error = new PickupTimeoutError(name, transport, pickupTimeoutMs as number)
        return this.failed(error, { durationMs: this.rt.clock.now() - this.startedAt })
      }
      this.pickedUpIn = this.rt.fence.epoch
      this.evaluate()
    }
    this.rt.withdrawTask(this.plan.transport, this.task()).then(done, () => done('unknown'))
  }

  /** When the attempt has timed out for the engine: its `timeoutMs` plus the grace. */
  private deadline(): number | null {
    if (this.plan.timeoutMs === undefined) return null
    return this.startedAt + this.plan.timeoutMs + TIMEOUT_GRACE_MS
  }

  private resultOf(payload: string): ResultMessage | null {
    try {
      const parsed = parseWireMessage(this.rt.codec.decode(payload), { expect: ['result'] })
      if (!parsed.ok) return null
      const result = parsed.message
      return result.runId === this.rt.runId && result.seq === this.seq ? result : null
    } catch {
      return null
    }
  }

  private step(
    attempts: number,
    wakeAt: number | null,
    worker?: StepWorker | null,
  ): StepRecordInput {
    return {
      seq: this.seq,
      name: this.plan.name,
      kind: 'step',
      attempts,
      startedAt: this.startedAt || this.rt.clock.now(),
      wakeAt,
      input: this.input,
      worker: worker ?? null,
    }
  }

  /**
   * The record of the current attempt's outcome: it gives the queue's slot back, if any, and
   * carries the lines the worker sent with its result.
   */
  private outcome(worker: StepWorker | null | undefined, logs?: StepLogAppend): StepRecordInput {
    const record = this.step(this.attempt, null, worker)
    if (logs !== undefined) record.logs = logs
    return this.slot === null ? record : { ...record, release: this.slot.queue }
  }

  /** A result's lines; malformed ones are logged and left out (the outcome still counts). */
  private logsOf(result: ResultMessage): StepLogAppend | undefined {
    const append = appendOfReport(result, this.rt.stepLogs.maxEntries)
    if (append === null) return undefined
    if (!(append instanceof Error)) return { ...append, name: this.plan.name }
    this.rt.stepLogs.logger.warn(
      { err: append, runId: this.rt.runId, seq: this.seq, taskId: result.taskId },
      'a step result carried malformed log lines: they are not kept',
    )
    return undefined
  }

  private ref(): RemoteAttemptRef {
    return { seq: this.seq, name: this.plan.name, attempt: this.attempt }
  }

  private label(): string {
    const base = `step "${this.plan.name}" on ${this.plan.transport} (attempt ${this.attempt})`
    const pickupAt = this.pickupAt()
    return pickupAt === null ? base : `${base} to be picked up by ${timeText(pickupAt)}`
  }
}

/** The worker that ran an attempt, as its result says (CheckpointRecord.worker). */
function workerOf(result: ResultMessage): StepWorker {
  return { id: result.workerId, startedAt: result.startedAt, finishedAt: result.finishedAt }
}
