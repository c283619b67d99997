/**
 * One schedule as `cairn schedules` shows it: a table row, and for --json the dashboard API's
 * view (engine.getSchedule's ScheduleInfo with times as ISO strings, plus the last run it
 * started and that run's status). Never the schedule's input.
 */
import type { Engine, ScheduleInfo } from '@cairn/core'
import { formatTime } from './values.ts'

export const SCHEDULE_COLUMNS = [
  'ID',
  'WORKFLOW',
  'WHEN',
  'OVERLAP',
  'PAUSED',
  'NEXT',
  'LAST RUN',
  'FIRED',
  'SKIPPED',
]

export interface ScheduleSummary {
  info: ScheduleInfo
  /** The last run's status, read now; null: none, or that run is gone. */
  lastRunStatus: string | null
}

export async function scheduleSummary(
  engine: Engine,
  info: ScheduleInfo,
): Promise<ScheduleSummary> {
  const run = info.lastRunId === null ? null : await engine.getRun(info.lastRunId)
  return { info, lastRunStatus: run?.status ?? null }
}

/** The API's ScheduleView (`toJson` writes its Dates as ISO strings). */
export function scheduleJson({ info, lastRunStatus }: ScheduleSummary) {
  const { lastRunId } = info
  return {
    ...info,
    lastRun:
      lastRunId === null || lastRunStatus === null
        ? null
        : { id: lastRunId, status: lastRunStatus },
  }
}

export function scheduleRow({ info, lastRunStatus }: ScheduleSummary): string[] {
  return [
    info.id,
    info.version === null ? info.workflow : `${info.workflow}@${info.version}`,
    info.cron !== null
      ? `${info.cron} ${info.timezone ?? 'UTC'}`
      : `every ${period(info.everyMs ?? 0)}`,
    info.overlap,
    info.paused ? 'yes' : 'no',
    formatTime(info.nextAt),
    info.lastRunId === null ? '-' : `${info.lastRunId} (${lastRunStatus ?? 'gone'})`,
    String(info.fired),
    String(info.skipped),
  ]
}

function period(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`
  if (ms % 60_000 === 0) return `${ms / 60_000}m`
  if (ms % 1000 === 0) return `${ms / 1000}s`
  return `${ms}ms`
}
