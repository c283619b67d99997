/**
 * Lifecycle events: a typed subscribe API (`engine.on`) and `node:diagnostics_channel`
 * channels named `cairn:<event>` (e.g. `cairn:step:completed`) for tracing and metrics.
 * Payloads carry ids, names and errors, never inputs or outputs. When nobody listens, an
 * emit is two property checks.
 */
import diagnostics from 'node:diagnostics_channel'
import type { SerializedError } from '../contracts/codec.ts'
import type { Logger } from '../contracts/logger.ts'
import type { ParkReason } from '../contracts/records.ts'

interface RunRef {
  runId: string
  workflow: string
  version: string
}

interface StepRef extends RunRef {
  seq: number
  name: string
  attempt: number
}

/**
 * How long the attempt took, in milliseconds (fractional): from just before the step function
 * was called to its outcome, measured with `performance.now()` — monotonic, sub-millisecond,
 * and real time even under a test's fake engine clock (which would report virtual time, not
 * work done). A transactional step's includes its commit.
 */
interface Timed {
  durationMs: number
}

export interface EngineEvents {
  'run:started': RunRef
  'run:completed': RunRef
  'run:failed': RunRef & { error: SerializedError }
  'run:cancelled': RunRef
  /**
   * An engine gave up recovering the run (`maxRecoveryAttempts`): it ended `dead` with `error`
   * (E_RUN_DEAD); `deadLetterRunId` names its dead letter, if one was started.
   */
  'run:dead': RunRef & {
    error: SerializedError
    recoveries: number
    deadLetterRunId: string | null
  }
  /** The run ended with ctx.continueAsNew; its successor carries on. */
  'run:continued': RunRef & { successorRunId: string }
  /** `blocked`: a remote step no live worker can serve; the run reads `blocked`. */
  'run:suspended': RunRef & { wakeAt: number | null; waitingOn: string; blocked: boolean }
  'run:parked': RunRef & { reason: ParkReason }
  /** A failed run was requeued (`engine.requeue`); `positionsReset` steps run again. */
  'run:requeued': RunRef & { positionsReset: number }
  /**
   * `leaseCheckedAt`: the engine's monotonic time (`clock.monotonic()`, `performance.now()` for
   * the system clock) at which the run's lease was found fresh for this attempt, just before
   * the event and the body: a body that begins long after it was stalled in between (a paused
   * process: docs/reliability.md, window 3).
   */
  'step:started': StepRef & { leaseCheckedAt: number }
  'step:completed': StepRef & Timed
  'step:failed': StepRef & Timed & { error: SerializedError }
  'step:retried': StepRef & Timed & { error: SerializedError; delayMs: number }
  /**
   * A remote step's task was published on `transport` (docs/remote-steps.md): the attempt's
   * first publish, or `republished` by a check that found no result yet (a lost or slow task).
   * The attempt's outcome comes as `step:completed`, `step:failed` or `step:retried`, whose
   * `durationMs` is the worker's own measure of the attempt (its clock, start to finish).
   */
  'task:dispatched': StepRef & { transport: string; taskId: string; republished: boolean }
  /**
   * This engine claimed a run that was still `running` under a lease: `reclaimed` when the
   * previous holder was this instance id (a restart under the same id hands its runs back at
   * once; or a lease this process let lapse), `takeover` when another instance's lease had
   * expired (that engine died or stalled). Its turn replays from the last checkpoint.
   */
  'run:recovered': RunRef & { previousOwner: string; kind: 'reclaimed' | 'takeover' }
  /**
   * This engine claimed a run that had run before and started its next turn: `cache` when the
   * turn went on from the body this engine had kept paused (the run cache, docs/run-cache.md),
   * `history` when it replayed the run's recorded history (not cached here, evicted, or the run
   * moved on elsewhere). A falling share of `cache` says `maxCachedRuns` is too small, or runs
   * wake on other engines.
   */
  'run:resumed': RunRef & { from: 'cache' | 'history' }
  /**
   * A schedule's window started its run (docs/schedules.md). `scheduledAt`: the window's time;
   * `lagMs`: how long after it the start was made (jitter, downtime, a slow claim).
   */
  'schedule:fired': {
    scheduleId: string
    workflow: string
    runId: string
    scheduledAt: number
    lagMs: number
  }
  /**
   * `count` windows of a schedule were passed over: `overlap` (its previous run was open),
   * `backfill` (missed beyond backfill.maxCatchup), `input` (its input function threw),
   * `refused` (the start was refused for good). `scheduledAt`: the first one's time.
   */
  'schedule:skipped': {
    scheduleId: string
    workflow: string
    scheduledAt: number
    reason: 'overlap' | 'backfill' | 'input' | 'refused'
    count: number
  }
  /**
   * A retention policy's sweep deleted runs, or passed over some an open run still needs
   * (docs/retention.md): `roots` expired runs deleted, `runs` deleted in all (their subtrees
   * too), `refused` kept for now. Not emitted for a sweep that found nothing.
   */
  'retention:swept': {
    policy: string
    roots: number
    runs: number
    refused: number
    durationMs: number
  }
}

export type EngineEventName = keyof EngineEvents
export type Listener<E extends EngineEventName> = (event: EngineEvents[E]) => void

const NAMES: EngineEventName[] = [
  'run:started',
  'run:completed',
  'run:failed',
  'run:cancelled',
  'run:dead',
  'run:continued',
  'run:suspended',
  'run:parked',
  'run:requeued',
  'run:recovered',
  'run:resumed',
  'step:started',
  'step:completed',
  'step:failed',
  'step:retried',
  'task:dispatched',
  'schedule:fired',
  'schedule:skipped',
  'retention:swept',
]

/** The diagnostics channel of each event, created once. */
export const channels = Object.fromEntries(
  NAMES.map((name) => [name, diagnostics.channel(`cairn:${name}`)]),
) as Record<EngineEventName, diagnostics.Channel>

export class EventHub {
  private readonly listeners = new Map<EngineEventName, Set<(event: unknown) => void>>()
  private readonly logger: Logger

  constructor(logger: Logger) {
    this.logger = logger
  }

  on<E extends EngineEventName>(name: E, listener: Listener<E>): () => void {
    let set = this.listeners.get(name)
    if (set === undefined) this.listeners.set(name, (set = new Set()))
    set.add(listener as (event: unknown) => void)
    return () => set.delete(listener as (event: unknown) => void)
  }

  /** Whether anybody would receive `name`: lets callers skip building the payload. */
  wants(name: EngineEventName): boolean {
    return (this.listeners.get(name)?.size ?? 0) > 0 || channels[name].hasSubscribers
  }

  emit<E extends EngineEventName>(name: E, event: EngineEvents[E]): void {
    const channel = channels[name]
    if (channel.hasSubscribers) channel.publish(event)
    const set = this.listeners.get(name)
    if (set === undefined) return
    for (const listener of set) this.callSafely(name, listener, event)
  }

  // A listener's bug must not break the run that emitted the event.
  private callSafely(name: string, listener: (event: unknown) => void, event: unknown): void {
    try {
      listener(event)
    } catch (error) {
      this.logger.error({ err: error, event: name }, 'cairn: an event listener threw')
    }
  }
}
