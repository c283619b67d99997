/**
 * What the schedule firer reports (engine events `schedule:fired` and `schedule:skipped`, the
 * metrics' source): a window's run started, with its lag behind the window's due time; windows
 * passed over, and why.
 */
import type { ScheduleRecord } from '../contracts/schedules.ts'
import type { EventHub } from './events.ts'

/** Why windows were passed over. */
export type ScheduleSkipReason = 'overlap' | 'backfill' | 'input' | 'refused'

export interface ScheduleEventSink {
  fired(record: ScheduleRecord, window: number, runId: string, now: number): void
  skipped(record: ScheduleRecord, window: number, reason: ScheduleSkipReason, count: number): void
}

export function scheduleEvents(events: EventHub): ScheduleEventSink {
  return {
    fired(record, window, runId, now) {
      if (!events.wants('schedule:fired')) return
      events.emit('schedule:fired', {
        scheduleId: record.id,
        workflow: record.workflow,
        runId,
        scheduledAt: window,
        lagMs: Math.max(0, now - window),
      })
    },
    skipped(record, window, reason, count) {
      if (!events.wants('schedule:skipped')) return
      events.emit('schedule:skipped', {
        scheduleId: record.id,
        workflow: record.workflow,
        scheduledAt: window,
        reason,
        count,
      })
    },
  }
}
