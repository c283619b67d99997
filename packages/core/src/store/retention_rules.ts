/**
 * Retention (contracts/retention.ts): what every store refuses before reading or deleting
 * anything (E_INVALID_ARGUMENT), and the rules every store applies — written once, so a
 * cutoff, a page of expired runs or a tree deletion means the same on every store.
 */
import type {
  DeleteRunTreesRequest,
  ExpiredRunsQuery,
  FinishedPosition,
  RetentionCutoffQuery,
  TerminalStatus,
} from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { MAX_TIME_MS } from '../util/numbers.ts'
import { assertIdentifier } from '../util/validate.ts'
import { compareCodePoints } from './memory/code_point_order.ts'
import { isTerminalStatus } from './run_statuses.ts'

/** Most roots one deleteRunTrees call takes. */
export const MAX_DELETE_ROOTS = 100
/** Most runs one deleteRunTrees call deletes (what bounds its transaction). */
export const MAX_DELETE_RUNS = 10_000
/** Most runs one expiredRuns page returns. */
export const MAX_EXPIRED_PAGE = 1000
/** Largest count a policy keeps (what bounds a cutoff read). */
export const MAX_KEEP_NEWEST = 1_000_000

/** Finish order: finishedAt, then run id by code point. */
export function compareFinished(a: FinishedPosition, b: FinishedPosition): number {
  return a.finishedAt - b.finishedAt || compareCodePoints(a.runId, b.runId)
}

export function checkRetentionCutoff(query: unknown): RetentionCutoffQuery {
  const where = 'retentionCutoff'
  const q = objectOf(query, where, '{ statuses, workflow?, keepNewest }')
  checkScope(q, where)
  if (!isInteger(q.keepNewest, 1, MAX_KEEP_NEWEST))
    throw invalid(`${where}: keepNewest is an integer 1..${MAX_KEEP_NEWEST}`, q.keepNewest)
  return query as RetentionCutoffQuery
}

export function checkExpiredRuns(query: unknown): ExpiredRunsQuery {
  const where = 'expiredRuns'
  const q = objectOf(query, where, '{ statuses, workflow?, before, after?, limit }')
  checkScope(q, where)
  checkPosition(q.before, `${where}: before`)
  if (q.after !== undefined) checkPosition(q.after, `${where}: after`)
  if (!isInteger(q.limit, 1, MAX_EXPIRED_PAGE))
    throw invalid(`${where}: limit is an integer 1..${MAX_EXPIRED_PAGE}`, q.limit)
  return query as ExpiredRunsQuery
}

export function checkDeleteRunTrees(request: unknown): DeleteRunTreesRequest {
  const where = 'deleteRunTrees'
  const r = objectOf(request, where, '{ runIds, maxRuns }')
  const ids = r.runIds
  if (!Array.isArray(ids) || ids.length < 1 || ids.length > MAX_DELETE_ROOTS)
    throw new InvalidArgumentError(`${where}: runIds is an array of 1..${MAX_DELETE_ROOTS} run ids`)
  for (const id of ids as unknown[]) assertIdentifier(id, `${where}: a run id`)
  if (new Set(ids).size !== ids.length)
    throw new InvalidArgumentError(`${where}: runIds must be distinct`)
  if (!isInteger(r.maxRuns, 1, MAX_DELETE_RUNS))
    throw invalid(`${where}: maxRuns is an integer 1..${MAX_DELETE_RUNS}`, r.maxRuns)
  if (r.expect !== undefined) {
    const expect = objectOf(r.expect, `${where}: expect`, '{ statuses, finishedBefore? }')
    checkScope({ statuses: expect.statuses }, `${where}: expect`)
    if (expect.finishedBefore !== undefined)
      checkPosition(expect.finishedBefore, `${where}: expect.finishedBefore`)
  }
  return request as DeleteRunTreesRequest
}

function checkScope(q: Record<string, unknown>, where: string): void {
  const statuses = q.statuses
  if (!Array.isArray(statuses) || statuses.length < 1)
    throw new InvalidArgumentError(`${where}: statuses is a non-empty array of terminal statuses`)
  for (const status of statuses as unknown[])
    if (typeof status !== 'string' || !isTerminalStatus(status))
      throw invalid(
        `${where}: statuses holds terminal statuses only (completed, failed, cancelled, continued, dead)`,
        status,
      )
  if (new Set(statuses as TerminalStatus[]).size !== statuses.length)
    throw new InvalidArgumentError(`${where}: statuses must be distinct`)
  if (q.workflow !== undefined) assertIdentifier(q.workflow, `${where}: workflow`)
}

function checkPosition(value: unknown, what: string): void {
  const p = objectOf(value, what, '{ finishedAt, runId }')
  if (!isInteger(p.finishedAt, 0, MAX_TIME_MS))
    throw invalid(`${what}.finishedAt is a time in ms (0..${MAX_TIME_MS})`, p.finishedAt)
  if (typeof p.runId !== 'string' || p.runId.length > 255)
    throw invalid(`${what}.runId is a string of at most 255 characters`, p.runId)
}

function objectOf(value: unknown, where: string, shape: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InvalidArgumentError(`${where}: expected an object ${shape}`)
  return value as Record<string, unknown>
}

function isInteger(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= min && value <= max
}

function invalid(message: string, value: unknown): InvalidArgumentError {
  const shown = typeof value === 'number' || typeof value === 'boolean' ? value : typeof value
  return new InvalidArgumentError(message, { details: { value: shown } })
}
