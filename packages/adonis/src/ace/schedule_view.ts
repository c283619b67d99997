/**
 * How `durable:schedules` shows a schedule: a table row for people and a JSON object for
 * scripts — the dashboard API's view (engine.getSchedule's ScheduleInfo, times as ISO strings,
 * plus the last run the schedule started and its status). Never the schedule's input.
 */
import type { Engine, ScheduleInfo } from '@cairn/core'

export const SCHEDULE_TABLE_HEAD = [
  'Schedule',
  'Workflow',
  'When',
  'Overlap',
  'Paused',
  'Next',
  'Last run',
  'Fired',
  'Skipped',
]

export interface ScheduleJson {
  id: string
  workflow: string
  version: string | null
  cron: string | null
  timezone: string | null
  everyMs: number | null
  jitterMs: number
  startAt: string | null
  endAt: string | null
  overlap: string
  maxCatchup: number
  inputComputed: boolean
  paused: boolean
  nextAt: string | null
  upcoming: string[]
  lastWindowAt: string | null
  lastRunId: string | null
  lastRun: { id: string; status: string } | null
  bufferedWindowAt: string | null
  fired: number
  skipped: number
  revision: number
  createdAt: string
  updatedAt: string
}

/** The schedule with its last run's status, read now (null: none, or the run is gone). */
export async function scheduleJson(engine: Engine, info: ScheduleInfo): Promise<ScheduleJson> {
  const run = info.lastRunId === null ? null : await engine.getRun(info.lastRunId)
  return {
    id: info.id,
    workflow: info.workflow,
    version: info.version,
    cron: info.cron,
    timezone: info.timezone,
    everyMs: info.everyMs,
    jitterMs: info.jitterMs,
    startAt: iso(info.startAt),
    endAt: iso(info.endAt),
    overlap: info.overlap,
    maxCatchup: info.maxCatchup,
    inputComputed: info.inputComputed,
    paused: info.paused,
    nextAt: iso(info.nextAt),
    upcoming: info.upcoming.map((date) => date.toISOString()),
    lastWindowAt: iso(info.lastWindowAt),
    lastRunId: info.lastRunId,
    lastRun: run === null ? null : { id: run.id, status: run.status },
    bufferedWindowAt: iso(info.bufferedWindowAt),
    fired: info.fired,
    skipped: info.skipped,
    revision: info.revision,
    createdAt: info.createdAt.toISOString(),
    updatedAt: info.updatedAt.toISOString(),
  }
}

export function scheduleRow(schedule: ScheduleJson): string[] {
  return [
    schedule.id,
    schedule.version === null ? schedule.workflow : `${schedule.workflow}@${schedule.version}`,
    whenText(schedule),
    schedule.overlap,
    schedule.paused ? 'yes' : 'no',
    schedule.nextAt ?? '—',
    schedule.lastRun !== null
      ? `${schedule.lastRun.id} (${schedule.lastRun.status})`
      : (schedule.lastRunId ?? '—'),
    String(schedule.fired),
    String(schedule.skipped),
  ]
}

/** `0 2 * * * Europe/Paris`, or `every 5 min`. */
function whenText(schedule: ScheduleJson): string {
  if (schedule.cron !== null) return `${schedule.cron} ${schedule.timezone ?? 'UTC'}`
  return `every ${periodText(schedule.everyMs ?? 0)}`
}

function periodText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`
  if (ms % 60_000 === 0) return `${ms / 60_000} min`
  if (ms % 1000 === 0) return `${ms / 1000} s`
  return `${ms} ms`
}

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString())
