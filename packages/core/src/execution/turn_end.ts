/**
 * How a turn ends: finish (terminal status), suspend (durable wait), park (cannot go on
 * safely), release (drain) or stop (lease lost / cancelled, nothing written). Each ending
 * writes at most one fenced op, then frees the turn; a fenced ending means another holder
 * or a cancel won, and this turn just lets go.
 */
import type { SerializedError } from '../contracts/codec.ts'
import { DEFAULT_PRIORITY } from '../store/run_priority.ts'
import type { CheckpointRecord, ParkReason, TerminalStatus } from '../contracts/records.ts'
import type {
  CreateRunOp,
  EventWaitToRegister,
  FinishRunOp,
  OpResult,
  StoreOp,
  SuspendRunOp,
} from '../contracts/state_store.ts'
import { CancelledError, ErrorCodes, WorkflowTimeoutError } from '../errors/index.ts'
import { failpoint } from '../util/failpoints.ts'
import { timeText } from '../util/time_text.ts'
import { childOutcomeMessage } from './child_outcome.ts'
import { letterCreated } from '../engine/dead_letters.ts'
import { successorRunId } from './continue_as_new.ts'
import { catchUpEvents } from './event_catch_up.ts'
import { encodeError, encodeValue } from './outcome.ts'
import { wakeOnOf } from './wake_names.ts'
import type { Turn, TurnDeps } from './turn.ts'

/**
 * `promoted`: the ending freed a singleton slot and the store promoted queued runs into it
 * (claimable now: the driver looks for work at once).
 */
export type TurnEnd =
  | {
      kind: 'completed' | 'failed'
      output: string | null
      error: string | null
      promoted?: boolean
    }
  | { kind: 'continued'; continuedTo: string; promoted?: boolean }
  /** `resumable`: the turn kept its body, paused, and may be cached (Turn.resumable). */
  | { kind: 'suspended'; wakeAt: number | null; resumable?: boolean }
  | { kind: 'parked'; reason: ParkReason }
  | { kind: 'released' }
  | { kind: 'cancelled'; error?: string; promoted?: boolean }
  | { kind: 'lost'; reason: string }

interface WaitInfo {
  wakeAt: number | null
  label: string
  pending: CheckpointRecord | null
  message?: string
  event?: EventWaitToRegister
  /** A remote step's wait: what no live worker offers now, or null (Turn.probeBlocked). */
  blockedProbe?: () => string | null
}

/** A wait as the suspend describes it: `blocked` names what no live worker offers. */
interface SuspendedWait extends WaitInfo {
  blocked?: string
}

/**
 * A blocked run is looked at again at least this often, so it reads `waiting` shortly after a
 * capable worker appears (which meanwhile takes the published task: its result wakes the run
 * in any case). docs/remote-steps.md#blocked-runs.
 */
export const BLOCKED_RECHECK_MS = 30_000

/** Reads of the event log after a suspend, before giving up (each failure logged). */
const CATCH_UP_ATTEMPTS = 3

type BodyResult = { ok: true; value: unknown } | { ok: false; error: unknown }

export class TurnEnding {
  live = true
  /** Suspended, delivering from the event log what its event waits missed (engine work). */
  catchingUp = false
  /** The ending began keeping the body (a resumable suspend): any other end frees it. */
  private kept = false
  private readonly turn: Turn
  private readonly deps: TurnDeps

  constructor(turn: Turn, deps: TurnDeps) {
    this.turn = turn
    this.deps = deps
  }

  async finish(result: BodyResult): Promise<void> {
    if (!this.begin('workflow finished')) return
    const what = `output of workflow "${this.turn.workflow}"`
    const encoded = result.ok
      ? encodeValue(result.value, this.deps.codec, what)
      : { ok: false as const, error: encodeError(result.error, this.deps.codec) }
    const status: TerminalStatus = encoded.ok ? 'completed' : 'failed'
    const op: FinishRunOp = {
      type: 'finishRun',
      fence: this.turn.fence,
      status,
      output: encoded.ok ? encoded.output : null,
      error: encoded.ok ? null : encoded.error,
      ...this.releasing(),
    }
    this.notifyParent(op)
    this.clearEventWaits(op)
    const letter = op.error === null ? null : this.deadLetter(op.error)
    // The dead letter first, idempotent by its id. A letter whose run's ending did not apply
    // (fenced) waits for that run to end, and runs only if it fails or dies
    // (engine/dead_letter_check.ts).
    const results = await this.write(letter === null ? [op] : [letter, op])
    if (results === null) return
    // Made even if the ending was fenced: claimable now, it looks at its run's ending itself.
    if (letter !== null && letterCreated(this.deps.logger, letter, results[0]))
      this.deps.wakeEngine(this.deps.clock.now())
    if (this.endedFenced(results)) return
    const ended = letter === null ? results : results.slice(1)
    this.emitTerminal(status, op.error)
    this.end({ kind: status, output: op.output, error: op.error, ...promotedBy(ended) })
  }

  /** The failing run's dead letter (dead_letters.ts), when it has one and its input is known. */
  private deadLetter(error: string): CreateRunOp | null {
    const { runId, workflow, version, inputText, recoveries } = this.turn
    if (inputText === null) return null
    return this.deps.deadLetter(
      { id: runId, workflow, version, input: inputText, recoveries },
      error,
    )
  }

  /**
   * The run ends `continued` and its successor is created, in one batch: the successor first
   * (idempotent by its derived id), then the fenced finish naming it. A fenced finish leaves
   * a successor that refuses to run unless this run's current holder continues to it too.
   */
  async continueAsNew(input: string): Promise<void> {
    if (!this.begin('run continued as new')) return
    const { runId, workflow } = this.turn
    const successor = successorRunId(runId)
    const create: CreateRunOp = {
      type: 'createRun',
      run: {
        id: successor,
        workflow,
        version: this.deps.newestVersion(workflow),
        input,
        createdAt: this.deps.clock.now(),
        continuedFrom: runId,
        ...(this.turn.parent === null ? {} : { parent: this.turn.parent }),
        // The successor is the same logical run: it keeps its place in the claim order.
        ...(this.turn.priority === DEFAULT_PRIORITY ? {} : { priority: this.turn.priority }),
        // And its queue: it asks for a slot at its first turn (this run's end frees its own).
        ...(this.turn.queue === null ? {} : { queue: this.turn.queue }),
      },
      ...this.inherited(),
    }
    const finish: FinishRunOp = {
      type: 'finishRun',
      fence: this.turn.fence,
      status: 'continued',
      output: null,
      error: null,
      continuedTo: successor,
      // Promotes when the successor's slot and the predecessor's were both counted (a stale
      // holder's successor beside the current holder): counts come from the runs.
      ...this.releasing(),
    }
    this.clearEventWaits(finish)
    const results = await this.write([create, finish])
    if (results === null) return
    // The successor is a started run (its ending is counted too), announced by whoever created
    // it — even when this turn's finish is fenced, as the successor exists and will end somehow.
    if (results[0]?.status === 'applied' && this.deps.events.wants('run:started'))
      this.deps.events.emit('run:started', {
        runId: successor,
        workflow,
        version: create.run.version,
      })
    if (this.endedFenced(results)) return
    if (this.deps.events.wants('run:continued'))
      this.deps.events.emit('run:continued', { ...this.ref(), successorRunId: successor })
    this.end({ kind: 'continued', continuedTo: successor, ...promotedBy(results.slice(1)) })
  }

  /** A finish frees the run's singleton slot: naming the key promotes its next waiter at once. */
  private releasing(): Pick<FinishRunOp, 'admission' | 'releaseQueues'> {
    const held = this.turn.admission
    const queues = [...this.turn.queuesUsed]
    return {
      ...(held === null ? {} : { admission: held }),
      ...(queues.length === 0 ? {} : { releaseQueues: queues }),
    }
  }

  /**
   * A successor keeps its predecessor's singleton slot (one logical run): the same key, the
   * limit and queue settings of the newest version, taking the slot over in the batch.
   */
  private inherited(): Pick<CreateRunOp, 'admission'> {
    const held = this.turn.admission
    const singleton = this.deps.singletonOf(this.turn.workflow)
    // A newest version without `singleton`: the successor runs unbounded, the slot is freed.
    if (held === null || singleton === undefined) return {}
    const onFull = singleton.onFull ?? 'queue'
    return {
      admission: {
        ...held,
        limit: singleton.limit ?? 1,
        onFull,
        maxQueueDepth: onFull === 'queue' ? (singleton.maxQueueDepth ?? null) : null,
        inheritFrom: this.turn.runId,
      },
    }
  }

  /** A compensating cancel has undone what it could: the run ends cancelled (fenced). */
  cancelWith(reason: string): Promise<void> {
    return this.endCancelled('run cancelled', () => new CancelledError(reason))
  }

  /** The run outlived its execution timeout: cancel it (fenced) with E_WORKFLOW_TIMEOUT. */
  timeOut(timeoutMs: number): Promise<void> {
    const error = () => new WorkflowTimeoutError(this.turn.workflow, timeoutMs)
    return this.endCancelled('workflow execution timed out', error)
  }

  /** The run ends `cancelled` by its own turn, with `error`; a parent hears of it. */
  private async endCancelled(why: string, makeError: () => Error): Promise<void> {
    if (!this.begin(why)) return
    const error = encodeError(makeError(), this.deps.codec)
    const op: FinishRunOp = {
      type: 'finishRun',
      fence: this.turn.fence,
      status: 'cancelled',
      output: null,
      error,
      ...this.releasing(),
    }
    this.notifyParent(op)
    // A run timed out as it woke has not re-registered its waits in this turn: clear anyway
    // (rare endings; the clearing costs a statement).
    op.clearEventWaits = true
    const results = await this.commit([op])
    if (results === null) return
    this.deps.events.emit('run:cancelled', this.ref())
    this.end({ kind: 'cancelled', error, ...promotedBy(results) })
  }

  async suspend(waits: ReadonlyMap<number, WaitInfo>, deadline: number | null): Promise<void> {
    if (waits.size === 0) return this.park(waitingOnNothing(this.turn.workflow))
    // Copied first: ending the turn clears its waits. Blocked probes are asked now, with the
    // engine's latest view of the fleet, not when each wait was registered.
    const list = probed([...waits.values()], this.deps.clock.now())
    if (!this.begin('run suspended', this.turn.resumable)) return
    // An execution deadline wakes the run too, so it is cancelled on time while it waits.
    const wakeAt = minOf(earliest(list), deadline)
    const waitingOn = describeWaits(list)
    const ops: StoreOp[] = list
      .filter((w) => w.pending !== null)
      .map(
        (w) =>
          ({ type: 'saveCheckpoint', fence: this.turn.fence, checkpoint: w.pending! }) as StoreOp,
      )
    const inboxSeen = this.turn.inboxSeen
    // A wait registered for the first time needs the log read once this suspend is durable
    // (publishers reach it from then on). Should this process die before that read, a later
    // turn must do it — a replayed wait reads the log itself (event_wait.ts) — so the run
    // comes back a lease from now at the latest, however long its wait.
    const newWaits = list.flatMap((w) =>
      w.event === undefined || w.pending === null ? [] : [w.event],
    )
    const checkBack = newWaits.length > 0 ? this.deps.clock.now() + this.deps.leaseMs : null
    const suspend: SuspendRunOp = {
      type: 'suspendRun',
      fence: this.turn.fence,
      wakeAt: minOf(wakeAt, checkBack),
      waitingOn,
      inboxSeen,
      wakeOn: wakeOnOf(list),
    }
    // One wait no live worker can serve blocks the run (its other waits may still end it).
    if (list.some((w) => w.blocked !== undefined)) suspend.blocked = true
    const eventWaits = list.flatMap((w) => (w.event === undefined ? [] : [w.event]))
    if (eventWaits.length > 0) suspend.eventWaits = eventWaits
    ops.push(suspend)
    const results = await this.commit(ops)
    if (results === null) {
      // Lost — or applied with its acknowledgement lost, the retry then meeting its own write
      // as fenced: the log read is owed either way. Deliveries are idempotent, and one to a
      // run that did not suspend here changes nothing its holder would not do itself.
      if (newWaits.length > 0) await this.catchUpEvents(newWaits)
      return
    }
    // The store may have woken the run at once (a signal landed during the turn).
    const stored = results.at(-1)
    let availableAt =
      stored?.status === 'applied' && stored.availableAt !== undefined
        ? stored.availableAt
        : suspend.wakeAt
    // Events published before the waits were registered: delivered now, waking the run.
    if (newWaits.length > 0 && (await this.catchUpEvents(newWaits)) > 0)
      availableAt = this.deps.clock.now()
    failpoint('P7') // suspended with a timer: a crash test keeps every engine down past it
    if (this.deps.events.wants('run:suspended')) {
      const blocked = suspend.blocked === true
      this.deps.events.emit('run:suspended', { ...this.ref(), wakeAt, waitingOn, blocked })
    }
    if (!this.kept) return this.end({ kind: 'suspended', wakeAt: availableAt })
    this.turn.suspendedDurably()
    this.end({ kind: 'suspended', wakeAt: availableAt, resumable: true })
  }

  async park(reason: ParkReason): Promise<void> {
    if (!this.begin(reason.message)) return
    if ((await this.commit([{ type: 'parkRun', fence: this.turn.fence, reason }])) === null) return
    // A parked run holds no slot, and the park grants nobody: the next waiters are granted now.
    if (this.turn.queuesUsed.size > 0) this.deps.grantFreed([...this.turn.queuesUsed])
    this.deps.events.emit('run:parked', { ...this.ref(), reason })
    this.end({ kind: 'parked', reason })
  }

  /** Hand the run back (drain); true when the store took it back. */
  async release(): Promise<boolean> {
    if (!this.begin('engine draining')) return false
    const op: StoreOp = {
      type: 'releaseRun',
      fence: this.turn.fence,
      availableAt: this.deps.clock.now(),
    }
    if ((await this.commit([op])) === null) return false
    this.end({ kind: 'released' })
    return true
  }

  /** End without writing: the lease is gone or the run was cancelled. */
  stop(end: TurnEnd): void {
    if (!this.begin(end.kind)) return
    if (end.kind === 'cancelled') this.deps.events.emit('run:cancelled', this.ref())
    this.end(end)
  }

  /** The registered event waits of a run that ends go with its finishing write. */
  private clearEventWaits(op: FinishRunOp): void {
    if (this.turn.hasEventWaits) op.clearEventWaits = true
  }

  /**
   * The suspend is durable: deliver what the event log already holds for the waits it
   * registered (event_catch_up.ts). A read that keeps failing is logged: events published
   * between the wait's start and its registration may then be missed.
   */
  private async catchUpEvents(waits: readonly EventWaitToRegister[]): Promise<number> {
    this.catchingUp = true
    try {
      return await this.readLogFor(waits)
    } finally {
      this.catchingUp = false
    }
  }

  private async readLogFor(waits: readonly EventWaitToRegister[]): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await catchUpEvents(this.deps, this.turn.runId, waits)
      } catch (error) {
        const level = attempt < CATCH_UP_ATTEMPTS ? 'warn' : 'error'
        this.deps.logger[level](
          { runId: this.turn.runId, attempt, error: String(error) },
          'reading the event log after a suspend failed',
        )
        if (attempt >= CATCH_UP_ATTEMPTS) return 0
      }
    }
  }

  /** A child's outcome rides on its finishing write to the parent's inbox: once, or not at all. */
  private notifyParent(op: FinishRunOp): void {
    const parent = this.turn.parent
    if (parent === null) return
    const child = { runId: this.turn.runId, workflow: this.turn.workflow }
    const outcome = { status: op.status, output: op.output, error: op.error }
    op.notify = childOutcomeMessage(child, parent, outcome, this.deps.codec)
  }

  // Stop every primitive at once: from here on the turn only writes its ending. `keep`: a
  // suspend that may keep the body for a later claim pauses it instead of freeing it.
  private begin(reason: string, keep = false): boolean {
    if (!this.live) return false
    this.live = false
    this.kept = keep
    if (keep) this.turn.pause()
    else this.turn.dispose(() => new Error(reason))
    return true
  }

  /** A cached turn resumes under a new lease (Turn.resume): live again. */
  reopen(): void {
    this.live = true
    this.kept = false
  }

  /** The results, or null when the turn was lost (write failed or fenced). */
  /** Writes `ops`; null (the turn ended lost) when a write failed or was fenced. */
  private async commit(ops: StoreOp[]): Promise<OpResult[] | null> {
    const results = await this.write(ops)
    return results === null || this.endedFenced(results) ? null : results
  }

  /** Writes `ops`, fenced or not; null (the turn ended lost) only when a write failed. */
  private async write(ops: StoreOp[]): Promise<OpResult[] | null> {
    try {
      return await Promise.all(ops.map((op) => this.deps.committer.enqueue(op)))
    } catch (error) {
      this.end({ kind: 'lost', reason: `write failed: ${String(error)}` })
      return null
    }
  }

  /** Whether a result was fenced, in which case the turn has ended lost. */
  private endedFenced(results: readonly OpResult[]): boolean {
    if (!results.some((r) => r.status === 'fenced')) return false
    this.end({ kind: 'lost', reason: 'lease fenced while ending the turn' })
    return true
  }

  private end(end: TurnEnd): void {
    if (this.kept && !(end.kind === 'suspended' && end.resumable === true)) {
      this.kept = false
      this.turn.dispose(() => new Error(`run ${end.kind}`))
    }
    this.deps.onEnded(this.turn, end)
  }

  private emitTerminal(status: TerminalStatus, error: string | null): void {
    if (status === 'completed') {
      if (this.deps.events.wants('run:completed'))
        this.deps.events.emit('run:completed', this.ref())
      return
    }
    if (!this.deps.events.wants('run:failed')) return
    const serialized = this.deps.codec.decode(error ?? 'null') as SerializedError
    this.deps.events.emit('run:failed', { ...this.ref(), error: serialized })
  }

  private ref() {
    return { runId: this.turn.runId, workflow: this.turn.workflow, version: this.turn.version }
  }
}

function probed(waits: WaitInfo[], now: number): SuspendedWait[] {
  return waits.map((w) => {
    const blocked = w.blockedProbe?.() ?? null
    if (blocked === null) return w
    const recheck = now + BLOCKED_RECHECK_MS
    return { ...w, blocked, wakeAt: w.wakeAt === null ? recheck : Math.min(w.wakeAt, recheck) }
  })
}

function waitingOnNothing(workflow: string): ParkReason {
  return {
    code: ErrorCodes.NOT_A_PRIMITIVE_WAIT,
    message: `workflow "${workflow}" awaits something that is not a Cairn primitive (a plain promise or timer); it can never wake. Await only ctx.* calls in a workflow body.`,
  }
}

function minOf(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b)
}

/** The earliest timer among the waits, or null when none has one (only a message wakes it). */
function earliest(waits: WaitInfo[]): number | null {
  let min: number | null = null
  for (const { wakeAt } of waits)
    if (wakeAt !== null && (min === null || wakeAt < min)) min = wakeAt
  return min
}

/** The waits for operators, blocked ones first (with what is missing; their timer is a check). */
function describeWaits(waits: SuspendedWait[]): string {
  const ordered = [
    ...waits.filter((w) => w.blocked !== undefined),
    ...waits.filter((w) => w.blocked === undefined),
  ]
  const shown = ordered.slice(0, 3).map((w) => {
    if (w.blocked !== undefined) return `${w.label} blocked: ${w.blocked}`
    return w.wakeAt === null ? w.label : `${w.label} until ${timeText(w.wakeAt)}`
  })
  return waits.length > 3 ? `${shown.join('; ')}; and ${waits.length - 3} more` : shown.join('; ')
}

/** `{ promoted: true }` when the ending's write promoted queued runs (OpResult.promoted). */
function promotedBy(results: readonly OpResult[]): { promoted?: true } {
  const first = results[0]
  return first?.status === 'applied' && first.promoted === true ? { promoted: true } : {}
}
