/**
 * Schedules (contracts/schedules.ts): what every store refuses before writing anything
 * (E_INVALID_ARGUMENT) and the rules every store applies — written once, so a put, a claim or
 * an advance means the same on every store.
 */
import type {
  ClaimSchedulesRequest,
  ScheduleAdvance,
  ScheduleListQuery,
  SchedulePut,
  ScheduleRecord,
} from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { MAX_TIME_MS, MAX_TIMER_MS } from '../util/numbers.ts'
import { assertIdentifier } from '../util/validate.ts'
import { MAX_CLAIM_WORKFLOWS } from './event_batch_rules.ts'
import { compareCodePoints } from './memory/code_point_order.ts'

/** Most schedules one claim takes, and one list page returns. */
export const MAX_SCHEDULE_CLAIM = 1000
export const MAX_SCHEDULE_PAGE = 1000
/** Longest spec text a store keeps (a static input rides in it). */
export const MAX_SCHEDULE_SPEC_LENGTH = 1_048_576

export function checkScheduleId(id: unknown, where: string): asserts id is string {
  assertIdentifier(id, `${where}: id`)
}

export function checkSchedulePut(put: unknown): SchedulePut {
  const where = 'putSchedule'
  const p = objectOf(put, where, '{ id, workflow, version, spec, paused, nextAt, now }')
  checkScheduleId(p.id, where)
  assertIdentifier(p.workflow, `${where}: workflow`)
  if (p.version !== null) assertIdentifier(p.version, `${where}: version`)
  if (typeof p.spec !== 'string' || p.spec.length > MAX_SCHEDULE_SPEC_LENGTH)
    throw invalid(
      `${where}: spec is a string of at most ${MAX_SCHEDULE_SPEC_LENGTH}`,
      typeof p.spec,
    )
  if (typeof p.paused !== 'boolean') throw invalid(`${where}: paused is a boolean`, p.paused)
  checkTimeOrNull(p.nextAt, `${where}: nextAt`)
  if (p.lastWindow !== undefined) checkTimeOrNull(p.lastWindow, `${where}: lastWindow`)
  if (p.ifRevision !== undefined && !isInteger(p.ifRevision, 1, Number.MAX_SAFE_INTEGER))
    throw invalid(`${where}: ifRevision is a positive integer`, p.ifRevision)
  checkTime(p.now, `${where}: now`)
  return put as SchedulePut
}

export function checkScheduleList(query: unknown): ScheduleListQuery {
  const where = 'listSchedules'
  const q = objectOf(query, where, '{ after?, limit }')
  if (q.after !== undefined && typeof q.after !== 'string')
    throw invalid(`${where}: after is a schedule id`, q.after)
  if (!isInteger(q.limit, 1, MAX_SCHEDULE_PAGE))
    throw invalid(`${where}: limit is an integer 1..${MAX_SCHEDULE_PAGE}`, q.limit)
  return query as ScheduleListQuery
}

export function checkClaimSchedules(request: unknown): ClaimSchedulesRequest {
  const where = 'claimDueSchedules'
  const r = objectOf(request, where, '{ now, owner, leaseMs, limit, workflows }')
  checkTime(r.now, `${where}: now`)
  assertIdentifier(r.owner, `${where}: owner`)
  if (!isInteger(r.leaseMs, 1, MAX_TIMER_MS))
    throw invalid(`${where}: leaseMs is an integer 1..${MAX_TIMER_MS}`, r.leaseMs)
  if ((r.now as number) + (r.leaseMs as number) > MAX_TIME_MS)
    throw invalid(`${where}: now + leaseMs is past ${MAX_TIME_MS}`, r.leaseMs)
  if (!isInteger(r.limit, 1, MAX_SCHEDULE_CLAIM))
    throw invalid(`${where}: limit is an integer 1..${MAX_SCHEDULE_CLAIM}`, r.limit)
  const workflows = r.workflows
  if (!Array.isArray(workflows) || workflows.length < 1 || workflows.length > MAX_CLAIM_WORKFLOWS)
    throw new InvalidArgumentError(
      `${where}: workflows is an array of 1..${MAX_CLAIM_WORKFLOWS} workflow names`,
    )
  for (const workflow of workflows as unknown[]) assertIdentifier(workflow, `${where}: a workflow`)
  return request as ClaimSchedulesRequest
}

export function checkScheduleAdvance(advance: unknown): ScheduleAdvance {
  const where = 'advanceSchedule'
  const a = objectOf(advance, where, '{ id, owner, revision, nextAt, lastWindow, … }')
  checkScheduleId(a.id, where)
  assertIdentifier(a.owner, `${where}: owner`)
  if (!isInteger(a.revision, 1, Number.MAX_SAFE_INTEGER))
    throw invalid(`${where}: revision is a positive integer`, a.revision)
  checkTimeOrNull(a.nextAt, `${where}: nextAt`)
  checkTimeOrNull(a.lastWindow, `${where}: lastWindow`)
  checkTimeOrNull(a.bufferedWindow, `${where}: bufferedWindow`)
  if (a.lastRunId !== null) assertIdentifier(a.lastRunId, `${where}: lastRunId`)
  for (const field of ['fired', 'skipped'] as const)
    if (!isInteger(a[field], 0, Number.MAX_SAFE_INTEGER))
      throw invalid(`${where}: ${field} is a count (an integer >= 0)`, a[field])
  checkTime(a.now, `${where}: now`)
  return advance as ScheduleAdvance
}

/** Whether `record` is due for a claim at `now` (the rule every store's claim applies). */
export function scheduleClaimable(record: ScheduleRecord, now: number): boolean {
  if (record.paused || record.nextAt === null || record.nextAt > now) return false
  return record.leaseUntil === null || record.leaseUntil <= now
}

/** Claim order: oldest due first, then by id (code points). */
export function scheduleClaimOrder(a: ScheduleRecord, b: ScheduleRecord): number {
  const at = (a.nextAt ?? 0) - (b.nextAt ?? 0)
  if (at !== 0) return at
  return compareCodePoints(a.id, b.id)
}

function objectOf(value: unknown, where: string, shape: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidArgumentError(`${where}: expected an object ${shape}`)
  return value as Record<string, unknown>
}

function checkTime(value: unknown, what: string): void {
  if (!isInteger(value, 0, MAX_TIME_MS))
    throw invalid(`${what} is a time in ms (0..${MAX_TIME_MS})`, value)
}

function checkTimeOrNull(value: unknown, what: string): void {
  if (value !== null) checkTime(value, what)
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max
}

function invalid(message: string, value: unknown): InvalidArgumentError {
  return new InvalidArgumentError(message, { details: { value: describe(value) } })
}

function describe(value: unknown): unknown {
  return typeof value === 'number' || typeof value === 'boolean' || value === null
    ? value
    : typeof value
}
