/**
 * A schedule as users write it (ScheduleSpec), checked and turned into the spec text the store
 * keeps (StoredScheduleSpec, JSON): how its windows fall — a cron pattern in a time zone, or a
 * fixed period from an anchor — its jitter, bounds, overlap policy, backfill and input. A bad
 * spec is E_INVALID_ARGUMENT naming the schedule and the field, before anything is written.
 */
import { Cron } from 'croner'
import type { Codec } from '../contracts/codec.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { checkOptionKeys, optionNames, type OptionsSpec } from '../util/known_keys.ts'
import { checkInteger, MAX_TIME_MS, MAX_TIMER_MS } from '../util/numbers.ts'
import { assertIdentifier } from '../util/validate.ts'
import { normalizeVersion } from './registry.ts'

export type OverlapPolicy = 'skip' | 'allow' | 'bufferOne' | 'cancelPrevious'

/** What an input function is given for one window. */
export interface ScheduleFiring {
  scheduleId: string
  /** The window's scheduled time (before jitter). */
  scheduledAt: Date
}

export interface ScheduleSpec<I = unknown> {
  /** The workflow each window starts. */
  workflow: string
  /** The version to start; default: the newest the firing engine registers. */
  version?: string | number
  /** A cron pattern of 5 fields (minute precision) or 6 (with seconds first). */
  cron?: string
  /** The IANA time zone `cron` is read in. Default UTC. */
  timezone?: string
  /** A fixed period instead of `cron`: windows at `startAt` (or creation) + k × everyMs. ≥ 1000. */
  everyMs?: number
  /** Each window is due up to this much after its time (a spread the same on every engine). Default 0. */
  jitterMs?: number
  /** No window before this time. */
  startAt?: Date | number
  /** No window after this time: the schedule is done then. */
  endAt?: Date | number
  /** The runs' input: a value (stored with the schedule), or a function of the window. */
  input?: I | ((firing: ScheduleFiring) => I)
  /** What a window does while the previous window's run is still open. Default 'skip'. */
  overlap?: OverlapPolicy
  /** After a downtime, the missed windows to start besides the newest one. Default 0. */
  backfill?: { maxCatchup: number }
  /** Created or put paused: no window fires until resumed. Default false. */
  paused?: boolean
}

/** A spec declared in code (engine option `schedules`, config/durable.ts): its id with it. */
export interface DeclaredSchedule<I = unknown> extends ScheduleSpec<I> {
  id: string
}

/** What the store keeps (JSON text): everything but the input function. */
export interface StoredScheduleSpec {
  cron: string | null
  timezone: string | null
  everyMs: number | null
  /** everyMs: the time window 0 falls at. */
  anchor: number | null
  jitterMs: number
  startAt: number | null
  endAt: number | null
  overlap: OverlapPolicy
  maxCatchup: number
  /** The codec text of a static input, or `computed`: a function only the declaring code has. */
  input: { text: string } | { computed: true }
}

const SPEC_KEYS: OptionsSpec = {
  call: 'engine.schedule',
  known: optionNames<DeclaredSchedule>({
    id: true,
    workflow: true,
    version: true,
    cron: true,
    timezone: true,
    everyMs: true,
    jitterMs: true,
    startAt: true,
    endAt: true,
    input: true,
    overlap: true,
    backfill: true,
    paused: true,
  }),
}

const OVERLAPS: ReadonlySet<string> = new Set(['skip', 'allow', 'bufferOne', 'cancelPrevious'])
const MIN_EVERY_MS = 1_000
const MAX_CATCHUP = 1_000

/** A checked spec: what the store keeps, and the parts the engine uses in memory. */
export interface CheckedSchedule {
  workflow: string
  version: string | null
  paused: boolean
  stored: StoredScheduleSpec
  /** The input function, when the spec has one (held by the declaring engine). */
  inputFn: ((firing: ScheduleFiring) => unknown) | null
}

/**
 * Check `spec` of schedule `id` and build what is stored. `now` anchors an `everyMs` schedule
 * without `startAt`; `anchor` keeps an existing schedule's (an update that leaves the period
 * alone must not move its windows).
 */
export function checkSchedule(
  id: unknown,
  spec: unknown,
  codec: Codec,
  now: number,
  anchor: number | null = null,
): CheckedSchedule {
  assertIdentifier(id, 'schedule id')
  const where = `schedule "${id}"`
  checkOptionKeys(spec, SPEC_KEYS, where)
  if (spec === undefined) throw new InvalidArgumentError(`${where}: a spec is required`)
  const s = spec as ScheduleSpec & { id?: unknown }
  assertIdentifier(s.workflow, `${where}: workflow`)
  const version = s.version === undefined ? null : normalizeVersion(s.version)
  const startAt = optionalTime(s.startAt, `${where}: startAt`)
  const endAt = optionalTime(s.endAt, `${where}: endAt`)
  if (startAt !== null && endAt !== null && endAt <= startAt)
    throw new InvalidArgumentError(`${where}: endAt must be after startAt`)
  const timing = checkTiming(s, where, startAt ?? anchor ?? now)
  const overlap = s.overlap ?? 'skip'
  if (typeof overlap !== 'string' || !OVERLAPS.has(overlap))
    throw new InvalidArgumentError(
      `${where}: overlap is 'skip', 'allow', 'bufferOne' or 'cancelPrevious', got ${JSON.stringify(overlap)}`,
    )
  const jitterMs =
    s.jitterMs === undefined
      ? 0
      : checkInteger(s.jitterMs, `${where}: jitterMs`, { min: 0, max: MAX_TIMER_MS })
  if (s.paused !== undefined && typeof s.paused !== 'boolean')
    throw new InvalidArgumentError(`${where}: paused is true or false`)
  const inputFn = typeof s.input === 'function' ? (s.input as CheckedSchedule['inputFn']) : null
  const stored: StoredScheduleSpec = {
    ...timing,
    jitterMs,
    startAt,
    endAt,
    overlap,
    maxCatchup: checkBackfill(s.backfill, where),
    input: inputFn !== null ? { computed: true } : { text: codec.encode(s.input ?? null) },
  }
  return { workflow: s.workflow, version, paused: s.paused ?? false, stored, inputFn }
}

/** Exactly one of cron (+ timezone) and everyMs; a cron that parses and matches some time. */
function checkTiming(
  s: ScheduleSpec,
  where: string,
  anchor: number,
): Pick<StoredScheduleSpec, 'cron' | 'timezone' | 'everyMs' | 'anchor'> {
  if ((s.cron === undefined) === (s.everyMs === undefined))
    throw new InvalidArgumentError(`${where}: give exactly one of cron and everyMs`)
  if (s.everyMs !== undefined) {
    if (s.timezone !== undefined)
      throw new InvalidArgumentError(`${where}: timezone goes with cron, not everyMs`)
    const everyMs = checkInteger(s.everyMs, `${where}: everyMs`, {
      min: MIN_EVERY_MS,
      max: MAX_TIMER_MS,
    })
    return { cron: null, timezone: null, everyMs, anchor }
  }
  if (typeof s.cron !== 'string')
    throw new InvalidArgumentError(`${where}: cron is a pattern string`)
  const fields = s.cron.trim().split(/\s+/).length
  if (fields !== 5 && fields !== 6)
    throw new InvalidArgumentError(
      `${where}: cron has 5 fields (minute hour day month weekday) or 6 (seconds first), got ${fields}`,
    )
  const timezone = s.timezone === undefined ? null : checkZone(s.timezone, where)
  let first: Date | null
  try {
    first = cronOf(s.cron, timezone).nextRun(new Date(0))
  } catch (error) {
    throw new InvalidArgumentError(`${where}: ${(error as Error).message}`, {
      details: { cron: s.cron, timezone },
    })
  }
  if (first === null)
    throw new InvalidArgumentError(`${where}: cron ${JSON.stringify(s.cron)} never matches`)
  return { cron: s.cron.trim(), timezone, everyMs: null, anchor: null }
}

/** A croner pattern that is only computed with, never scheduled (no timer of its own). */
export function cronOf(pattern: string, timezone: string | null): Cron {
  return new Cron(pattern, {
    paused: true,
    mode: '5-or-6-parts',
    // Vixie cron's DST rule: a time without wildcards in its minute and hour is fixed and
    // fires once when the clock falls back; a wildcard one runs through the repeated hour.
    fixedTimeRule: 'no-wildcard',
    ...(timezone === null ? { timezone: 'UTC' } : { timezone }),
  })
}

/** A zone name this process's time-zone data knows (never '' — the host's own zone). */
function checkZone(zone: unknown, where: string): string {
  if (typeof zone !== 'string' || zone.trim() === '')
    throw new InvalidArgumentError(`${where}: timezone is an IANA zone name, e.g. 'Europe/Paris'`)
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
  } catch {
    throw new InvalidArgumentError(`${where}: timezone ${JSON.stringify(zone)} is not a known zone`)
  }
  return zone
}

function checkBackfill(backfill: unknown, where: string): number {
  if (backfill === undefined) return 0
  if (typeof backfill !== 'object' || backfill === null || Array.isArray(backfill))
    throw new InvalidArgumentError(`${where}: backfill is { maxCatchup }`)
  const keys = Object.keys(backfill)
  if (keys.some((key) => key !== 'maxCatchup'))
    throw new InvalidArgumentError(`${where}: backfill takes only maxCatchup`)
  return checkInteger(
    (backfill as { maxCatchup: unknown }).maxCatchup,
    `${where}: backfill.maxCatchup`,
    {
      min: 0,
      max: MAX_CATCHUP,
    },
  )
}

function optionalTime(value: unknown, what: string): number | null {
  if (value === undefined) return null
  const ms = value instanceof Date ? value.getTime() : value
  return checkInteger(ms, what, { min: 0, max: MAX_TIME_MS })
}

export function encodeStoredSpec(spec: StoredScheduleSpec): string {
  return JSON.stringify(spec)
}

export function decodeStoredSpec(text: string): StoredScheduleSpec {
  return JSON.parse(text) as StoredScheduleSpec
}
