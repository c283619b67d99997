/**
 * How `durable:schedules` shows a schedule: a table row for people and a JSON object for
 * scripts — the dashboard API's view (engine.getSchedule's ScheduleInfo, times as ISO strings,
 * plus the last run the schedule started and its status). Never the schedule's input.
 */
import { scheduleJson, type Engine, type ScheduleInfo, type ScheduleJson } from '@cairn/core'

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

export type { ScheduleJson }

/** The schedule with its last run's status, read now (null: none, or the run is gone). */
export function scheduleJsonOf(engine: Engine, info: ScheduleInfo): Promise<ScheduleJson> {
  return scheduleJson(info, (runId) => engine.getRun(runId))
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
