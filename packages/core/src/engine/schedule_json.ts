/**
 * A schedule as JSON for the outside (the dashboard's API, `durable:schedules --json`, the
 * CLI): ScheduleInfo's dates as ISO strings, and its last run's status, read now.
 */
import type { ScheduleInfo } from './schedule_view.ts'

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
  /** The last run and its status now; null when none, or it is gone. */
  lastRun: { id: string; status: string } | null
  bufferedWindowAt: string | null
  fired: number
  skipped: number
  revision: number
  createdAt: string
  updatedAt: string
  /** Why this engine cannot read the schedule's spec, or null (ScheduleInfo.specError). */
  specError: string | null
}

/** `info` as JSON, its last run read through `getRun` (engine.getRun). */
export async function scheduleJson(
  info: ScheduleInfo,
  getRun: (runId: string) => Promise<{ id: string; status: string } | null>,
): Promise<ScheduleJson> {
  const run = info.lastRunId === null ? null : await getRun(info.lastRunId)
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
    specError: info.specError,
  }
}

function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString()
}
