/**
 * Validation of the listRuns / facetRuns filters added for the dashboard (version, creation
 * window, claimable window, id substring, tag, origin, singleton key), shared by every store so
 * each refuses the same inputs with the same E_INVALID_ARGUMENT before building a query. Any string is a valid tag or
 * origin: one no run carries simply matches nothing. The older filters (workflow, status, parent,
 * search attributes) are checked where they always were.
 */
import type { RunFacetQuery } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { MAX_ID_LENGTH } from '../util/validate.ts'
import { checkAdmissionKey } from './admission_check.ts'

/** Longest `idContains`: no run id is longer. */
export const MAX_ID_CONTAINS_LENGTH = MAX_ID_LENGTH

/** Most workflows facetRuns lists (the largest ones). */
export const MAX_WORKFLOW_FACETS = 100

/** The new filters of `query`, checked; absent ones stay undefined. */
export interface RunWindowFilters {
  version: string | undefined
  createdFrom: number | undefined
  createdBefore: number | undefined
  /** Exclusive: runs whose claimableAt is before it. */
  claimableBefore: number | undefined
  idContains: string | undefined
}

export function checkRunFilters(query: RunFacetQuery): RunWindowFilters {
  const { version, createdFrom, createdBefore, claimableBefore, idContains } = query
  for (const key of ['tag', 'originRunId'] as const) {
    const value: unknown = query[key]
    if (value !== undefined && typeof value !== 'string')
      throw invalid(`${key} must be a string, got ${typeof value}`, key)
  }
  if (version !== undefined && typeof version !== 'string')
    throw invalid('version must be a string', 'version')
  checkTime(createdFrom, 'createdFrom')
  checkTime(createdBefore, 'createdBefore')
  checkTime(claimableBefore, 'claimableBefore')
  if (idContains !== undefined) checkIdContains(idContains)
  checkAdmissionKeyFilter(query.admissionKey)
  return { version, createdFrom, createdBefore, claimableBefore, idContains }
}

function checkTime(value: unknown, field: string): void {
  if (value !== undefined && !Number.isSafeInteger(value))
    throw invalid(`${field} must be a safe integer (milliseconds), got ${String(value)}`, field)
}

/**
 * `admissionKey`: absent, or `{ scope, key }` each a valid scope or key (admission_check.ts).
 * Checked by checkRunFilters; stores read `query.admissionKey` once it passed.
 */
function checkAdmissionKeyFilter(value: unknown): void {
  if (value === undefined) return
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid('admissionKey must be an object { scope, key }', 'admissionKey')
  const { scope, key, ...rest } = value as Record<string, unknown>
  const extra = Object.keys(rest)[0]
  if (extra !== undefined)
    throw invalid(`admissionKey has no field "${extra}" (only scope and key)`, 'admissionKey')
  for (const [what, part] of [
    ['scope', scope],
    ['key', key],
  ] as const) {
    try {
      checkAdmissionKey(part, `admissionKey ${what}`, '')
    } catch (err) {
      throw invalid((err as Error).message, 'admissionKey')
    }
  }
}

function checkIdContains(value: unknown): void {
  if (typeof value !== 'string') throw invalid('idContains must be a string', 'idContains')
  if (value.length < 1 || value.length > MAX_ID_CONTAINS_LENGTH)
    throw invalid(
      `idContains must be 1..${MAX_ID_CONTAINS_LENGTH} characters (got ${value.length})`,
      'idContains',
    )
}

function invalid(message: string, field: string): InvalidArgumentError {
  return new InvalidArgumentError(`listRuns: ${message}`, { details: { field } })
}
