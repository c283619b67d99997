/**
 * The memory store's schedules (contracts/schedules.ts): records by id. The rules are
 * store-kit's (schedule_rules.ts), as in every store; every call is synchronous, so each is
 * atomic like a transaction.
 */
import type {
  ClaimedSchedules,
  ClaimSchedulesRequest,
  ScheduleAdvance,
  ScheduleAdvanceResult,
  ScheduleListQuery,
  SchedulePut,
  ScheduleRecord,
} from '../../contracts/index.ts'
import { scheduleClaimable, scheduleClaimOrder } from '../schedule_rules.ts'
import { compareCodePoints } from './code_point_order.ts'

export class Schedules {
  readonly #all = new Map<string, ScheduleRecord>()

  put(put: SchedulePut): ScheduleRecord | null {
    const old = this.#all.get(put.id)
    if (put.ifRevision !== undefined && old?.revision !== put.ifRevision) return null
    const { id, workflow, version, spec, paused, nextAt, now } = put
    const replacesWindow = put.lastWindow !== undefined
    const record: ScheduleRecord =
      old === undefined
        ? {
            ...{ id, workflow, version, spec, paused, nextAt },
            lastWindow: put.lastWindow ?? null,
            lastRunId: null,
            bufferedWindow: null,
            fired: 0,
            skipped: 0,
            revision: 1,
            createdAt: now,
            updatedAt: now,
            leaseOwner: null,
            leaseUntil: null,
          }
        : {
            ...old,
            ...{ workflow, version, spec, paused, nextAt },
            lastWindow: replacesWindow ? (put.lastWindow ?? null) : old.lastWindow,
            bufferedWindow: replacesWindow ? null : old.bufferedWindow,
            revision: old.revision + 1,
            updatedAt: now,
            leaseOwner: null,
            leaseUntil: null,
          }
    this.#all.set(id, record)
    return { ...record }
  }

  get(id: string): ScheduleRecord | null {
    const record = this.#all.get(id)
    return record === undefined ? null : { ...record }
  }

  list(query: ScheduleListQuery): ScheduleRecord[] {
    const after = query.after
    return [...this.#all.values()]
      .filter((r) => after === undefined || compareCodePoints(r.id, after) > 0)
      .sort((a, b) => compareCodePoints(a.id, b.id))
      .slice(0, query.limit)
      .map((r) => ({ ...r }))
  }

  delete(id: string): boolean {
    return this.#all.delete(id)
  }

  claim(request: ClaimSchedulesRequest): ClaimedSchedules {
    const { now, owner, leaseMs, limit } = request
    const workflows = new Set(request.workflows)
    const mine = [...this.#all.values()].filter((r) => workflows.has(r.workflow))
    const due = mine.filter((r) => scheduleClaimable(r, now)).sort(scheduleClaimOrder)
    const claimed = due.slice(0, limit)
    for (const record of claimed) {
      record.leaseOwner = owner
      record.leaseUntil = now + leaseMs
    }
    const taken = new Set(claimed)
    let nextAt: number | null = null
    for (const record of mine) {
      if (taken.has(record) || record.paused || record.nextAt === null) continue
      if (nextAt === null || record.nextAt < nextAt) nextAt = record.nextAt
    }
    return { claimed: claimed.map((r) => ({ ...r })), nextAt }
  }

  advance(advance: ScheduleAdvance): ScheduleAdvanceResult {
    const record = this.#all.get(advance.id)
    if (record === undefined || record.leaseOwner !== advance.owner) return 'stale'
    if (record.revision !== advance.revision) return 'stale'
    record.nextAt = advance.nextAt
    record.lastWindow = advance.lastWindow
    record.lastRunId = advance.lastRunId
    record.bufferedWindow = advance.bufferedWindow
    record.fired += advance.fired
    record.skipped += advance.skipped
    record.updatedAt = advance.now
    record.leaseOwner = null
    record.leaseUntil = null
    return 'applied'
  }
}
