/**
 * What the API returns for schedules: `engine.getSchedule` / `listSchedules` (ScheduleInfo)
 * with times as ISO strings, and the last run the schedule started with its status (read with
 * engine.getRun; null when it started none, or that run is gone).
 */
import { scheduleJson, type Engine, type ScheduleInfo, type ScheduleJson } from '@cairn/core'

export type ScheduleView = ScheduleJson

export function scheduleView(engine: Engine, info: ScheduleInfo): Promise<ScheduleView> {
  return scheduleJson(info, (runId) => engine.getRun(runId))
}
