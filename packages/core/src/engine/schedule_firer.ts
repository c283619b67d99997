/**
 * Fires due schedules on every driving engine (docs/design/schedules.md): claims them from the
 * store (StateStore.claimDueSchedules: each goes to one engine per lease), starts each due
 * window's run under its deterministic id `sch:<scheduleId>:<ISO time>` through the overlap
 * policy, then advances the schedule (fenced by its lease and revision).
 *
 * Exactly once per window: a crash between the starts and the advance leaves the lease to
 * lapse; the next claimer computes the same windows, and their starts find the runs existing.
 * A start that fails for a reason a later try can mend (the store, a workflow or queue this
 * engine lacks, an input function declared elsewhere) abandons the firing the same way.
 */
import type { ScheduleRecord } from '../contracts/schedules.ts'
import { isTerminalStatus } from '../store/run_statuses.ts'
import { CairnError, ErrorCodes } from '../errors/index.ts'
import { MAX_CLAIM_WORKFLOWS } from '../store/event_batch_rules.ts'
import { DueLoop, type PassResult } from './due_loop.ts'
import type { ResolvedEngineOptions } from './options.ts'
import { decodeStoredSpec, type ScheduleFiring, type StoredScheduleSpec } from './schedule_spec.ts'
import { dueWindows, ScheduleTimes, windowsAfter } from './schedule_windows.ts'
import type { ScheduleEventSink } from './schedule_events.ts'
import { windowRunId } from './schedule_ids.ts'

/** Schedules one claim takes. */
const CLAIM_LIMIT = 20
/**
 * A claim reporting a due time already past means a schedule another engine holds (its lease
 * runs, or a concurrent claim locked it): that engine advances it. Looked at again this much
 * later — not at once and again, for as long as the other engine's lease runs.
 */
const HELD_RECHECK_MS = 1_000
/** A window buffered by `bufferOne` looks at its previous run again this often. */
export const BUFFER_RECHECK_MS = 1_000
/** Start failures a later firing can mend: the firing is abandoned, its lease lapses. */
const MENDABLE: ReadonlySet<string> = new Set([
  ErrorCodes.STORE_FAILURE,
  ErrorCodes.ENGINE_STOPPED,
  ErrorCodes.WORKFLOW_NOT_REGISTERED,
  ErrorCodes.QUEUE_NOT_REGISTERED,
])

export interface ScheduleFirerDeps {
  options: ResolvedEngineOptions
  /** The workflows this engine registers: it claims only their schedules. */
  workflows(): readonly string[]
  /** engine.start under `runId` (idempotent by it). */
  start(workflow: string, version: string | null, input: unknown, runId: string): Promise<unknown>
  /** The input function of a schedule declared in this process, if any. */
  inputFn(scheduleId: string): ((firing: ScheduleFiring) => unknown) | undefined
  /** engine.cancel, for overlap `cancelPrevious`. */
  cancel(runId: string, reason: string): Promise<unknown>
  events: ScheduleEventSink
}

/** A firing that cannot go on here (a mendable failure): left for its lease to lapse. */
class Abandon extends Error {}

export class ScheduleFirer {
  readonly #deps: ScheduleFirerDeps
  readonly #loop: DueLoop

  constructor(deps: ScheduleFirerDeps) {
    this.#deps = deps
    this.#loop = new DueLoop(deps.options, {
      pass: (active) => this.#claimAndFire(active),
      failure:
        'cairn: claiming due schedules failed; retrying (their windows fire late, none is lost)',
    })
  }

  get busy(): boolean {
    return this.#loop.busy
  }

  start(): void {
    this.#loop.start()
  }

  stop(): void {
    this.#loop.stop()
  }

  /** A schedule was put or a workflow registered while driving: look now. */
  changed(): void {
    this.#loop.now()
  }

  async #claimAndFire(active: () => boolean): Promise<PassResult> {
    const { store, clock, instanceId, leaseMs } = this.#deps.options
    const all = this.#deps.workflows()
    let next: number | null = null
    let more = false
    for (let i = 0; i < all.length && active(); i += MAX_CLAIM_WORKFLOWS) {
      const { claimed, nextAt } = await store.claimDueSchedules({
        now: clock.now(),
        limit: CLAIM_LIMIT,
        owner: instanceId,
        leaseMs,
        workflows: all.slice(i, i + MAX_CLAIM_WORKFLOWS),
      })
      const after = await Promise.all(claimed.map((record) => this.#fire(record)))
      const now = clock.now()
      const held = nextAt !== null && nextAt <= now ? now + HELD_RECHECK_MS : nextAt
      for (const at of [held, ...after]) if (at !== null && (next === null || at < next)) next = at
      more ||= claimed.length === CLAIM_LIMIT
    }
    return more ? 'more' : next
  }

  /**
   * Fire one claimed schedule: its next due time (null: none). A firing that failed is looked
   * at again when its lease ends (this engine's claim then takes it back, or another's does).
   */
  async #fire(record: ScheduleRecord): Promise<number | null> {
    const { logger, clock, leaseMs } = this.#deps.options
    try {
      return await this.#fireWindows(record)
    } catch (error) {
      const where = { scheduleId: record.id, workflow: record.workflow, err: error }
      if (error instanceof Abandon)
        logger.warn(where, `cairn: ${error.message}; retried after its lease`)
      else logger.error(where, 'cairn: a schedule could not fire; retried after its lease')
      return record.leaseUntil ?? clock.now() + leaseMs
    }
  }

  async #fireWindows(record: ScheduleRecord): Promise<number | null> {
    const { clock, store, instanceId } = this.#deps.options
    const now = clock.now()
    const spec = decodeStoredSpec(record.spec)
    const times = new ScheduleTimes(record.id, spec)
    const state = {
      lastRunId: record.lastRunId,
      buffered: record.bufferedWindow,
      fired: 0,
      skipped: 0,
    }
    if (state.buffered !== null && !(await this.#open(state.lastRunId))) {
      state.lastRunId = await this.#startWindow(record, spec, state.buffered, now)
      state.fired += 1
      state.buffered = null
    }
    const after = windowsAfter(record)
    const due = dueWindows(times, after, now, spec.maxCatchup)
    state.skipped += due.skipped
    if (due.skipped > 0)
      this.#deps.events.skipped(record, due.fire[0] ?? now, 'backfill', due.skipped)
    for (const window of due.fire) await this.#handle(record, spec, window, now, state)
    let nextAt = due.next === null ? null : times.due(due.next)
    if (state.buffered !== null) nextAt = Math.min(nextAt ?? Infinity, now + BUFFER_RECHECK_MS)
    const result = await store.advanceSchedule({
      id: record.id,
      owner: instanceId,
      revision: record.revision,
      nextAt,
      lastWindow: due.last ?? record.lastWindow,
      lastRunId: state.lastRunId,
      bufferedWindow: state.buffered,
      fired: state.fired,
      skipped: state.skipped,
      now: clock.now(),
    })
    return result === 'applied' ? nextAt : null
  }

  /** One due window through the overlap policy. */
  async #handle(
    record: ScheduleRecord,
    spec: StoredScheduleSpec,
    window: number,
    now: number,
    state: { lastRunId: string | null; buffered: number | null; fired: number; skipped: number },
  ): Promise<void> {
    const previous = state.lastRunId
    const open = previous !== null && spec.overlap !== 'allow' && (await this.#open(previous))
    if (open && spec.overlap === 'skip') {
      state.skipped += 1
      return this.#deps.events.skipped(record, window, 'overlap', 1)
    }
    if (open && spec.overlap === 'bufferOne') {
      if (state.buffered === null) state.buffered = window
      else {
        state.skipped += 1
        this.#deps.events.skipped(record, window, 'overlap', 1)
      }
      return
    }
    if (open && spec.overlap === 'cancelPrevious')
      await this.#deps
        .cancel(previous, `schedule "${record.id}": the next window started`)
        .catch((error: unknown) => {
          // Ended meanwhile: nothing to cancel.
          if (!CairnError.isCairnError(error) || error.code !== ErrorCodes.RUN_TERMINAL) throw error
        })
    const runId = await this.#startWindow(record, spec, window, now)
    if (runId === null) {
      state.skipped += 1
      return
    }
    state.lastRunId = runId
    state.fired += 1
  }

  /** Start window `window`'s run: its id, or null when it was refused for good (skipped). */
  async #startWindow(
    record: ScheduleRecord,
    spec: StoredScheduleSpec,
    window: number,
    now: number,
  ): Promise<string | null> {
    const runId = windowRunId(record.id, window)
    const input = await this.#input(record, spec, window)
    if (input === SKIP) {
      this.#deps.events.skipped(record, window, 'input', 1)
      return null
    }
    try {
      await this.#deps.start(record.workflow, record.version, input.value, runId)
    } catch (error) {
      const code = CairnError.isCairnError(error) ? error.code : ''
      if (MENDABLE.has(code))
        throw new Abandon(`schedule "${record.id}" could not start ${runId} (${code})`)
      this.#deps.options.logger.error(
        { scheduleId: record.id, runId, err: error },
        'cairn: a schedule window was refused its run; it is skipped',
      )
      this.#deps.events.skipped(record, window, 'refused', 1)
      return null
    }
    this.#deps.events.fired(record, window, runId, now)
    return runId
  }

  /** The window's input: the stored value, or the declaring code's function of the window. */
  async #input(
    record: ScheduleRecord,
    spec: StoredScheduleSpec,
    window: number,
  ): Promise<{ value: unknown } | typeof SKIP> {
    if ('text' in spec.input) return { value: this.#deps.options.codec.decode(spec.input.text) }
    const fn = this.#deps.inputFn(record.id)
    if (fn === undefined)
      throw new Abandon(`schedule "${record.id}" computes its input in code this engine lacks`)
    try {
      return { value: await fn({ scheduleId: record.id, scheduledAt: new Date(window) }) }
    } catch (error) {
      this.#deps.options.logger.error(
        { scheduleId: record.id, window: new Date(window).toISOString(), err: error },
        "cairn: a schedule's input function threw; the window is skipped",
      )
      return SKIP
    }
  }

  /** Whether run `runId` is still open (through its continueAsNew successors). */
  async #open(runId: string | null): Promise<boolean> {
    let id = runId
    for (let hop = 0; id !== null && hop < 100; hop++) {
      const run = await this.#deps.options.store.getRun(id)
      if (run === null) return false
      if (run.status === 'continued' && run.continuedTo !== null) {
        id = run.continuedTo
        continue
      }
      return !isTerminalStatus(run.status)
    }
    return false
  }
}

const SKIP = Symbol('skip')
