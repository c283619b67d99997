/**
 * The schedules API behind `engine.schedule`, `pauseSchedule`, `resumeSchedule`,
 * `deleteSchedule`, `getSchedule`, `listSchedules`, `triggerSchedule`, and the schedules
 * declared in code (engine option `schedules`, a workflow's `schedule`), put when the engine
 * starts driving. A put computes the schedule's next due time; the firer (schedule_firer.ts)
 * does the rest.
 *
 * Windows count from a schedule's creation; a put that changes when windows fall (cron,
 * timezone, everyMs, startAt) and a resume count from that moment: nothing before it is
 * backfilled. A declared schedule whose stored spec is the same is not put again (a redeploy
 * keeps its firing state), and a declaration never overrides an operator's pause or resume.
 */
import type { ScheduleRecord } from '../contracts/schedules.ts'
import { InvalidArgumentError, ScheduleNotFoundError, StoreFailureError } from '../errors/index.ts'
import type { ResolvedEngineOptions } from './options.ts'
import { manualRunId, MAX_SCHEDULE_ID_LENGTH } from './schedule_ids.ts'
import {
  checkSchedule,
  decodeStoredSpec,
  encodeStoredSpec,
  type CheckedSchedule,
  type DeclaredSchedule,
  type ScheduleFiring,
  type ScheduleSpec,
  type StoredScheduleSpec,
} from './schedule_spec.ts'
import { ScheduleTimes, windowsAfter } from './schedule_windows.ts'
import { toScheduleInfo, type ScheduleInfo } from './schedule_view.ts'

export interface ScheduleBookDeps {
  options: ResolvedEngineOptions
  /** A schedule was put: the firer looks now. */
  changed(): void
  /** engine.start under `runId`. */
  start(workflow: string, version: string | null, input: unknown, runId: string): Promise<unknown>
}

export class ScheduleBook {
  readonly #deps: ScheduleBookDeps
  /** Input functions of schedules declared or put in this process, by schedule id. */
  readonly #inputs = new Map<string, (firing: ScheduleFiring) => unknown>()
  /** Schedules declared in code, put when the engine starts driving. */
  readonly #declared = new Map<string, ScheduleSpec>()

  constructor(deps: ScheduleBookDeps) {
    this.#deps = deps
  }

  inputFn(id: string): ((firing: ScheduleFiring) => unknown) | undefined {
    return this.#inputs.get(id)
  }

  /** Refuse a declaration that is malformed or whose id is declared already (nothing held). */
  check(declared: unknown): DeclaredSchedule {
    if (typeof declared !== 'object' || declared === null || Array.isArray(declared))
      throw new InvalidArgumentError('a declared schedule is an object { id, workflow, … }')
    const { id, ...spec } = declared as DeclaredSchedule
    checkId(id)
    checkSchedule(id, spec, this.#deps.options.codec, this.#deps.options.clock.now())
    // Another version of the same workflow declaring it again: the newest declaration stands.
    const before = this.#declared.get(id)
    if (before !== undefined && before.workflow !== spec.workflow)
      throw new InvalidArgumentError(
        `schedule "${id}" is declared twice (for "${before.workflow}" and "${spec.workflow}")`,
        { details: { id } },
      )
    return declared as DeclaredSchedule
  }

  /** Hold a checked declaration (put at `putDeclared`, or now with `putOne` while driving). */
  declare(declared: DeclaredSchedule): void {
    const { id, ...spec } = declared
    this.#declared.set(id, spec)
    if (typeof spec.input === 'function') this.#inputs.set(id, spec.input as never)
  }

  /** Put every declared schedule whose stored spec differs (at startDriving). */
  async putDeclared(): Promise<void> {
    for (const id of this.#declared.keys()) await this.putOne(id)
  }

  /** Put declared schedule `id` if its stored spec differs. */
  async putOne(id: string): Promise<void> {
    const spec = this.#declared.get(id)
    if (spec !== undefined) await this.#put(id, spec, { declared: true })
  }

  /** Create or update schedule `id` (engine.schedule). */
  async schedule(id: string, spec: ScheduleSpec): Promise<ScheduleInfo> {
    checkId(id)
    return toScheduleInfo(await this.#put(id, spec, { declared: false }), this.#now())
  }

  async get(id: string): Promise<ScheduleInfo | null> {
    checkId(id)
    const record = await this.#deps.options.store.getSchedule(id)
    return record === null ? null : toScheduleInfo(record, this.#now())
  }

  async list(query: { after?: string; limit?: number } = {}): Promise<ScheduleInfo[]> {
    const records = await this.#deps.options.store.listSchedules({
      ...(query.after === undefined ? {} : { after: query.after }),
      limit: query.limit ?? 100,
    })
    const now = this.#now()
    return records.map((record) => toScheduleInfo(record, now))
  }

  async delete(id: string): Promise<boolean> {
    checkId(id)
    this.#inputs.delete(id)
    return this.#deps.options.store.deleteSchedule(id)
  }

  /**
   * Pause (no window fires) or resume (windows count from now). Written only over the revision
   * read (an update made meanwhile is read again, never undone).
   */
  async setPaused(id: string, paused: boolean): Promise<ScheduleInfo> {
    const now = this.#now()
    const stored = await rereading(id, async () => {
      const record = await this.#existing(id)
      // Already so: nothing to write (a resume of a running schedule keeps a buffered window).
      if (record.paused === paused) return record
      const spec = decodeStoredSpec(record.spec)
      return this.#deps.options.store.putSchedule({
        id,
        workflow: record.workflow,
        version: record.version,
        spec: record.spec,
        paused,
        nextAt: paused ? record.nextAt : nextDue(id, spec, now),
        ...(paused ? {} : { lastWindow: now }),
        ifRevision: record.revision,
        now,
      })
    })
    if (!paused) this.#deps.changed()
    return toScheduleInfo(stored, now)
  }

  /** A run now, outside the windows and the overlap policy (engine.triggerSchedule). */
  async trigger(id: string): Promise<{ runId: string }> {
    const record = await this.#existing(id)
    const spec = decodeStoredSpec(record.spec)
    const now = this.#now()
    const runId = manualRunId(id, now)
    const firing = { scheduleId: id, scheduledAt: new Date(now) }
    let input: unknown
    if ('text' in spec.input) input = this.#deps.options.codec.decode(spec.input.text)
    else {
      const fn = this.#inputs.get(id)
      if (fn === undefined)
        throw new InvalidArgumentError(
          `schedule "${id}" computes its input in code this process does not declare: trigger it where it is declared`,
          { details: { id } },
        )
      input = await fn(firing)
    }
    await this.#deps.start(record.workflow, record.version, input, runId)
    return { runId }
  }

  async #existing(id: string): Promise<ScheduleRecord> {
    checkId(id)
    const record = await this.#deps.options.store.getSchedule(id)
    if (record === null)
      throw new ScheduleNotFoundError(`no schedule with id "${id}"`, {
        details: { scheduleId: id },
      })
    return record
  }

  async #put(id: string, spec: ScheduleSpec, how: { declared: boolean }): Promise<ScheduleRecord> {
    const stored = await rereading(id, () => this.#putOnce(id, spec, how))
    this.#deps.changed()
    return stored
  }

  /** One read and one write of `id`, the write over the revision read (null: it moved). */
  async #putOnce(
    id: string,
    spec: ScheduleSpec,
    how: { declared: boolean },
  ): Promise<ScheduleRecord | null> {
    const { store, codec } = this.#deps.options
    const now = this.#now()
    const existing = await store.getSchedule(id)
    const old = existing === null ? null : decodeStoredSpec(existing.spec)
    const checked = checkSchedule(id, spec, codec, now, old?.anchor ?? null)
    const fresh = keepAnchor(checked, old)
    if (checked.inputFn !== null) this.#inputs.set(id, checked.inputFn)
    const text = encodeStoredSpec(fresh)
    if (existing !== null && how.declared && sameDeclaration(existing, checked, text))
      return existing
    // A declaration never changes an existing schedule's pause (an operator's call); an
    // explicit put says what it wants. Un-pausing counts windows from now, as a resume does.
    const paused = existing !== null && how.declared ? existing.paused : checked.paused
    const moved =
      old === null || timingChanged(old, fresh) || (existing?.paused === true && !paused)
    const after = moved || existing === null ? now : windowsAfter(existing)
    return store.putSchedule({
      id,
      workflow: checked.workflow,
      version: checked.version,
      spec: text,
      paused,
      nextAt: nextDue(id, fresh, after),
      ...(moved && existing !== null ? { lastWindow: now } : {}),
      ...(existing === null ? {} : { ifRevision: existing.revision }),
      now,
    })
  }

  #now(): number {
    return this.#deps.options.clock.now()
  }
}

/** The due time of the first window after `after`, or null. */
function nextDue(id: string, spec: StoredScheduleSpec, after: number): number | null {
  const times = new ScheduleTimes(id, spec)
  const next = times.next(after)
  return next === null ? null : times.due(next)
}

/** An update that keeps the period keeps the windows' anchor (they do not move). */
function keepAnchor(checked: CheckedSchedule, old: StoredScheduleSpec | null): StoredScheduleSpec {
  const spec = checked.stored
  if (old === null || spec.everyMs === null || old.everyMs !== spec.everyMs) return spec
  if (old.startAt !== spec.startAt) return spec
  return { ...spec, anchor: old.anchor }
}

function timingChanged(old: StoredScheduleSpec, spec: StoredScheduleSpec): boolean {
  return (
    old.cron !== spec.cron ||
    old.timezone !== spec.timezone ||
    old.everyMs !== spec.everyMs ||
    old.anchor !== spec.anchor ||
    old.startAt !== spec.startAt
  )
}

function sameDeclaration(
  existing: ScheduleRecord,
  checked: CheckedSchedule,
  text: string,
): boolean {
  return (
    existing.spec === text &&
    existing.workflow === checked.workflow &&
    existing.version === checked.version
  )
}

function checkId(id: unknown): asserts id is string {
  if (typeof id === 'string' && id.length > MAX_SCHEDULE_ID_LENGTH)
    throw new InvalidArgumentError(
      `schedule id must be at most ${MAX_SCHEDULE_ID_LENGTH} characters (got ${id.length})`,
    )
  if (typeof id !== 'string' || id === '')
    throw new InvalidArgumentError('schedule id must be a non-empty string', {
      details: { id: typeof id },
    })
}

/** Tries of a read-then-conditional-write before giving up (each lost to a concurrent write). */
const REREADS = 5

/** `attempt` until it writes (or finds nothing to write): null means the schedule moved on. */
async function rereading(
  id: string,
  attempt: () => Promise<ScheduleRecord | null>,
): Promise<ScheduleRecord> {
  for (let tries = 1; ; tries++) {
    const stored = await attempt()
    if (stored !== null) return stored
    if (tries >= REREADS)
      throw new StoreFailureError(
        `schedule "${id}" changed under ${REREADS} writes in a row; try again`,
        { details: { scheduleId: id } },
      )
  }
}
