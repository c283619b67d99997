/**
 * The run ids schedules start: one per window, the same on every engine, so a window's start
 * is idempotent (engine.start finds the run existing); and one per manual trigger.
 */

/** Most characters a schedule id has: its run ids must fit the 255 of a run id. */
export const MAX_SCHEDULE_ID_LENGTH = 200

/** The run of schedule `scheduleId`'s window at `window` (ms). */
export function windowRunId(scheduleId: string, window: number): string {
  return `sch:${scheduleId}:${new Date(window).toISOString()}`
}

/** The run an operator's trigger starts at `at` (ms). */
export function manualRunId(scheduleId: string, at: number): string {
  return `sch:${scheduleId}:manual:${new Date(at).toISOString()}`
}
