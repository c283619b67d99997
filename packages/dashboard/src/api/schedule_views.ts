/**
 * What the API returns for schedules: `engine.getSchedule` / `listSchedules` (ScheduleInfo)
 * with times as ISO strings, and the last run the schedule started with its status (read with
 * engine.getRun; null when it started none, or that run is gone).
 */
import type { Engine, ScheduleInfo } from '@cairn/core'

export interface ScheduleView {
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

export async function scheduleView(engine: Engine, info: ScheduleInfo): Promise<ScheduleView> {
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

const iso = (date: Date | null): string | null => (date === null ? null : date.toISOString())
