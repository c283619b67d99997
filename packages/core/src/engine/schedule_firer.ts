/**
 * Fires due schedules on every driving engine (docs/design/schedules.md): claims them from the
 * store (StateStore.claimDueSchedules: each goes to one engine per lease), starts each due
 * window's run under its deterministic id `sch:<scheduleId>:<ISO time>` through the overlap
 * policy (schedule_window_start.ts), then advances the schedule (fenced by its lease and
 * revision).
 *
 * Exactly once per window: a crash between the starts and the advance leaves the lease to
 * lapse; the next claimer computes the same windows, and finds their runs existing. A start
 * that fails for a reason a later try can mend abandons the firing to its lease. A schedule
 * whose input function this engine lacks (declared in another process) is released at once,
 * its next look a lease away, for an engine that has it.
 */
import type { ScheduleRecord } from '../contracts/schedules.ts'
import { CairnError, ErrorCodes } from '../errors/index.ts'
import { MAX_CLAIM_WORKFLOWS } from '../store/event_batch_rules.ts'
import { DueLoop, type PassResult } from './due_loop.ts'
import type { ResolvedEngineOptions } from './options.ts'
import type { ScheduleEventSink } from './schedule_events.ts'
import { openRunOf } from './schedule_overlap.ts'
import { decodeStoredSpec, type ScheduleFiring, type StoredScheduleSpec } from './schedule_spec.ts'
import { Abandon, startWindow, type WindowStartDeps } from './schedule_window_start.ts'
import { dueWindows, ScheduleTimes, windowsAfter } from './schedule_windows.ts'

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

export interface ScheduleFirerDeps {
  options: ResolvedEngineOptions
  /** The workflows this engine registers: it claims only their schedules. */
  workflows(): readonly string[]
  /** engine.start under `runId` (idempotent by it). */
  start: WindowStartDeps['start']
  /** The input function of a schedule declared in this process, if any. */
  inputFn(scheduleId: string): ((firing: ScheduleFiring) => unknown) | undefined
  /** engine.cancel, for overlap `cancelPrevious`. */
  cancel(runId: string, reason: string): Promise<unknown>
  events: ScheduleEventSink
}

interface FiringState {
  lastRunId: string | null
  buffered: number | null
  fired: number
  skipped: number
}

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
      if (error instanceof Abandon && error.missingInput) return this.#leave(record)
      if (error instanceof Abandon)
        logger.warn(where, `cairn: ${error.message}; retried after its lease`)
      else logger.error(where, 'cairn: a schedule could not fire; retried after its lease')
      return record.leaseUntil ?? clock.now() + leaseMs
    }
  }

  /**
   * Release `record` for an engine that has its input function: its next look pushed a lease
   * out (so this engine does not claim it again at once), nothing else changed. Its window
   * keeps its time and run id; an engine with the function fires it then, a lease late at most.
   */
  async #leave(record: ScheduleRecord): Promise<null> {
    const { store, clock, instanceId, leaseMs, logger } = this.#deps.options
    const now = clock.now()
    logger.warn(
      { scheduleId: record.id, workflow: record.workflow },
      'cairn: a schedule computes its input in code this engine lacks; left to an engine that has it',
    )
    await store.advanceSchedule({
      id: record.id,
      owner: instanceId,
      revision: record.revision,
      nextAt: Math.max(record.nextAt ?? now, now + leaseMs),
      lastWindow: record.lastWindow,
      lastRunId: record.lastRunId,
      bufferedWindow: record.bufferedWindow,
      fired: 0,
      skipped: 0,
      now,
    })
    return null
  }

  async #fireWindows(record: ScheduleRecord): Promise<number | null> {
    const { clock, store, instanceId } = this.#deps.options
    const now = clock.now()
    const spec = decodeStoredSpec(record.spec)
    const times = new ScheduleTimes(record.id, spec)
    const state: FiringState = {
      lastRunId: record.lastRunId,
      buffered: record.bufferedWindow,
      fired: 0,
      skipped: 0,
    }
    if (state.buffered !== null) await this.#releaseBuffered(record, spec, state, now)
    const due = dueWindows(times, windowsAfter(record), now, spec.maxCatchup)
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

  /** A window held by `bufferOne` starts once the previous run has ended. */
  async #releaseBuffered(
    record: ScheduleRecord,
    spec: StoredScheduleSpec,
    state: FiringState,
    now: number,
  ): Promise<void> {
    const open = await openRunOf(this.#deps.options.store, state.lastRunId)
    if (open !== null) {
      state.lastRunId = open
      return
    }
    const window = state.buffered as number
    state.buffered = null
    await this.#start(record, spec, window, now, state)
  }

  /** One due window through the overlap policy. */
  async #handle(
    record: ScheduleRecord,
    spec: StoredScheduleSpec,
    window: number,
    now: number,
    state: FiringState,
  ): Promise<void> {
    const open =
      spec.overlap === 'allow' ? null : await openRunOf(this.#deps.options.store, state.lastRunId)
    if (open !== null) state.lastRunId = open // the newest of its continueAsNew chain
    if (open !== null && spec.overlap === 'skip') return this.#skip(record, window, state)
    if (open !== null && spec.overlap === 'bufferOne') {
      if (state.buffered === null) state.buffered = window
      else this.#skip(record, window, state)
      return
    }
    if (open !== null && spec.overlap === 'cancelPrevious')
      await this.#deps
        .cancel(open, `schedule "${record.id}": the next window started`)
        .catch((error: unknown) => {
          // Ended meanwhile: nothing to cancel.
          if (!CairnError.isCairnError(error) || error.code !== ErrorCodes.RUN_TERMINAL) throw error
        })
    await this.#start(record, spec, window, now, state)
  }

  async #start(
    record: ScheduleRecord,
    spec: StoredScheduleSpec,
    window: number,
    now: number,
    state: FiringState,
  ): Promise<void> {
    const runId = await startWindow(this.#deps, record, spec, window, now)
    if (runId === null) {
      state.skipped += 1
      return
    }
    state.lastRunId = runId
    state.fired += 1
  }

  #skip(record: ScheduleRecord, window: number, state: FiringState): void {
    state.skipped += 1
    this.#deps.events.skipped(record, window, 'overlap', 1)
  }
}
