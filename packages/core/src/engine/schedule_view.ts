/**
 * A schedule as `engine.getSchedule` / `listSchedules` show it: its spec (the input as stored,
 * or `inputComputed`), its state, and its next due times.
 */
import type { ScheduleRecord } from '../contracts/schedules.ts'
import { decodeStoredSpec, type OverlapPolicy } from './schedule_spec.ts'
import { ScheduleTimes, windowsAfter } from './schedule_windows.ts'

/** How many next due times a view lists. */
const UPCOMING = 5

export interface ScheduleInfo {
  id: string
  workflow: string
  /** The version it starts; null: the newest the firing engine registers. */
  version: string | null
  cron: string | null
  timezone: string | null
  everyMs: number | null
  jitterMs: number
  startAt: Date | null
  endAt: Date | null
  overlap: OverlapPolicy
  maxCatchup: number
  /** The runs' input is computed per window by the declaring code. */
  inputComputed: boolean
  paused: boolean
  /** When the next window is due (null: paused, or no more windows). */
  nextAt: Date | null
  /** The next due times from now (none while paused). */
  upcoming: Date[]
  /** The last window handled, its run, and a window held back by `bufferOne`. */
  lastWindowAt: Date | null
  lastRunId: string | null
  bufferedWindowAt: Date | null
  fired: number
  skipped: number
  revision: number
  createdAt: Date
  updatedAt: Date
  /**
   * Why this engine cannot read the schedule's spec (written by a newer version, or a zone this
   * process's time-zone data lacks): the spec fields are then null and it never fires here.
   */
  specError: string | null
}

export function toScheduleInfo(record: ScheduleRecord, now: number): ScheduleInfo {
  try {
    return readable(record, now)
  } catch (error) {
    return unreadable(record, error)
  }
}

function readable(record: ScheduleRecord, now: number): ScheduleInfo {
  const spec = decodeStoredSpec(record.spec)
  const date = (ms: number | null) => (ms === null ? null : new Date(ms))
  return {
    id: record.id,
    workflow: record.workflow,
    version: record.version,
    cron: spec.cron,
    timezone: spec.timezone,
    everyMs: spec.everyMs,
    jitterMs: spec.jitterMs,
    startAt: date(spec.startAt),
    endAt: date(spec.endAt),
    overlap: spec.overlap,
    maxCatchup: spec.maxCatchup,
    inputComputed: 'computed' in spec.input,
    paused: record.paused,
    nextAt: record.paused ? null : date(record.nextAt),
    upcoming: record.paused ? [] : upcoming(record, now),
    lastWindowAt: date(record.lastWindow),
    lastRunId: record.lastRunId,
    bufferedWindowAt: date(record.bufferedWindow),
    fired: record.fired,
    skipped: record.skipped,
    revision: record.revision,
    createdAt: new Date(record.createdAt),
    updatedAt: new Date(record.updatedAt),
    specError: null,
  }
}

/** A schedule whose spec this engine cannot read: its state, and why. */
function unreadable(record: ScheduleRecord, error: unknown): ScheduleInfo {
  const date = (ms: number | null) => (ms === null ? null : new Date(ms))
  return {
    id: record.id,
    workflow: record.workflow,
    version: record.version,
    cron: null,
    timezone: null,
    everyMs: null,
    jitterMs: 0,
    startAt: null,
    endAt: null,
    overlap: 'skip',
    maxCatchup: 0,
    inputComputed: false,
    paused: record.paused,
    nextAt: date(record.nextAt),
    upcoming: [],
    lastWindowAt: date(record.lastWindow),
    lastRunId: record.lastRunId,
    bufferedWindowAt: date(record.bufferedWindow),
    fired: record.fired,
    skipped: record.skipped,
    revision: record.revision,
    createdAt: new Date(record.createdAt),
    updatedAt: new Date(record.updatedAt),
    specError: error instanceof Error ? error.message : String(error),
  }
}

function upcoming(record: ScheduleRecord, now: number): Date[] {
  const times = new ScheduleTimes(record.id, decodeStoredSpec(record.spec))
  const dates: Date[] = []
  let t = times.next(Math.max(now - 1, windowsAfter(record)))
  for (; t !== null && dates.length < UPCOMING; t = times.next(t))
    dates.push(new Date(times.due(t)))
  return dates
}
