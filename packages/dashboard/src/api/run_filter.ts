/**
 * The run filter of `GET api/runs`, `api/facets`, `api/stream/runs` and bulk actions, read
 * from an allowlist of query keys: anything else is a 400, so a typo never silently widens
 * a list (or a bulk cancel). Values are checked here; the engine checks them again.
 */
import {
  RUN_STATUSES,
  type ListRunsQuery,
  type RunStatus,
  type SearchAttributeFilter,
} from '@cairn/core'
import { badRequest } from '../http/http_error.ts'
import { parseAttrCondition } from './attr_condition.ts'
import { applyStuckFor, checkStuckFor } from './stuck_for.ts'

/** The filter keys (query keys; the same keys in a bulk action's `filter` object). */
export const FILTER_KEYS = [
  'status',
  'workflow',
  'version',
  'tag',
  'q',
  'createdFrom',
  'createdTo',
  'claimableBefore',
  'stuckFor',
  'attr',
  'singletonKey',
] as const
type FilterKey = (typeof FILTER_KEYS)[number]

/** Filter values by key: every key repeatable as a list, in a canonical order. */
export type RunFilter = Partial<Record<FilterKey, string[]>>

const MAX_TEXT = 255

/** The filter of a query string; `extraKeys` are other allowed keys (limit, cursor). */
export function filterFromSearchParams(
  params: URLSearchParams,
  extraKeys: readonly string[],
): RunFilter {
  const filter: RunFilter = {}
  for (const key of new Set(params.keys())) {
    if (extraKeys.includes(key)) continue
    if (!isFilterKey(key)) throw unknownKey(key)
    filter[key] = params.getAll(key)
  }
  return checkFilter(filter)
}

/** The filter of a JSON object (bulk actions): strings or arrays of strings per key. */
export function filterFromObject(value: unknown): RunFilter {
  if (value === undefined) return {}
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest('filter must be an object')
  const filter: RunFilter = {}
  for (const [key, entry] of Object.entries(value)) {
    if (!isFilterKey(key)) throw unknownKey(key)
    const list = Array.isArray(entry) ? entry : [entry]
    if (list.length === 0 || !list.every((v) => typeof v === 'string'))
      throw badRequest(`filter.${key} must be a string or a non-empty array of strings`)
    filter[key] = list as string[]
  }
  return checkFilter(filter)
}

function checkFilter(filter: RunFilter): RunFilter {
  for (const [key, values] of Object.entries(filter)) {
    for (const value of values) {
      if (value.length === 0 || value.length > 4 * MAX_TEXT)
        throw badRequest(`${key}: values must be 1..${4 * MAX_TEXT} characters`)
    }
    if (key !== 'status' && key !== 'attr' && values.length > 1)
      throw badRequest(`${key} may be given once`)
  }
  for (const status of filter.status ?? [])
    if (!RUN_STATUSES.includes(status as RunStatus))
      throw badRequest(`status must be one of ${RUN_STATUSES.join(', ')}`)
  for (const key of ['createdFrom', 'createdTo', 'claimableBefore'] as const)
    if (filter[key] !== undefined) filter[key] = [isoInstant(key, filter[key][0] as string)]
  // Every route refuses a bad condition at the door (a stream would otherwise start first).
  if (filter.attr !== undefined) attributeFilter(filter.attr)
  // A key is its workflow's (the engine's singleton scope is the workflow name).
  if (filter.singletonKey !== undefined && filter.workflow === undefined)
    throw badRequest('singletonKey needs workflow: a singleton key is its workflow\'s')
  checkStuckFor(filter)
  return canonical(filter)
}

/**
 * An ISO-8601 date or date-time, or epoch milliseconds, as the instant's canonical ISO form:
 * one instant has one form, so a cursor binds it however it was written. Epoch milliseconds
 * take 12..15 digits (from 1973 on): a year such as `2024` is refused, not read as 1970.
 */
function isoInstant(key: string, text: string): string {
  const ms = /^\d{12,15}$/.test(text)
    ? Number(text)
    : /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(text) && calendarValid(text)
      ? Date.parse(text)
      : NaN
  // Beyond ±8.64e15 ms a Date is invalid: refused here rather than thrown by toISOString.
  if (Number.isNaN(new Date(ms).getTime()))
    throw badRequest(
      `${key} must be an ISO-8601 date or date-time, or epoch milliseconds (12..15 digits)`,
    )
  return new Date(ms).toISOString()
}

/**
 * Date.parse rolls an impossible date over (2024-02-30 is March 1st): the fields as written must
 * name a real day and time, or the value is refused.
 */
function calendarValid(text: string): boolean {
  const [, y, mo, d, h, mi, sec] =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?/.exec(text) ?? []
  const [year, month, day] = [Number(y), Number(mo), Number(d)]
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth) return false
  if (h !== undefined && (Number(h) > 23 || Number(mi) > 59)) return false
  return sec === undefined || Number(sec) <= 59
}

/** Keys sorted, statuses sorted and deduplicated: one filter, one form (cursors are bound to it). */
function canonical(filter: RunFilter): RunFilter {
  const out: RunFilter = {}
  for (const key of [...FILTER_KEYS].sort()) {
    const values = filter[key]
    if (values === undefined) continue
    out[key] = key === 'status' ? [...new Set(values)].sort() : [...values]
  }
  return out
}

/**
 * The engine query a filter stands for at `now` (the engine clock's ms): `stuckFor` resolves
 * to a cutoff each time, so call this at each check rather than keeping its result.
 */
export function toListRunsQuery(filter: RunFilter, now: number): ListRunsQuery {
  const query: ListRunsQuery = {}
  if (filter.status !== undefined) query.status = filter.status as RunStatus[]
  if (filter.workflow !== undefined) query.workflow = filter.workflow[0]
  if (filter.version !== undefined) query.version = filter.version[0]
  if (filter.tag !== undefined) query.tag = filter.tag[0]
  if (filter.q !== undefined) query.idContains = filter.q[0]
  if (filter.createdFrom !== undefined)
    query.createdFrom = Date.parse(filter.createdFrom[0] as string)
  if (filter.createdTo !== undefined)
    query.createdBefore = Date.parse(filter.createdTo[0] as string)
  if (filter.claimableBefore !== undefined)
    query.claimableBefore = Date.parse(filter.claimableBefore[0] as string)
  if (filter.attr !== undefined) query.searchAttributes = attributeFilter(filter.attr)
  // The key's open runs (held or queued); the engine's scope of a key is its workflow's name.
  if (filter.singletonKey !== undefined && query.workflow !== undefined)
    query.admissionKey = { scope: query.workflow, key: filter.singletonKey[0] as string }
  applyStuckFor(query, filter.stuckFor, now)
  return query
}

// Names and operators come from the request: objects without a prototype, so `__proto__:gt:5`
// is a key like any other (refused by name just below), never a write into Object.prototype.
function attributeFilter(conditions: readonly string[]): SearchAttributeFilter {
  const filter = Object.create(null) as Record<string, Record<string, string | number | boolean>>
  for (const text of conditions) {
    const { name, op, value } = parseAttrCondition(text)
    const entry = (filter[name] ??= Object.create(null) as Record<
      string,
      string | number | boolean
    >)
    if (Object.hasOwn(entry, op)) throw badRequest(`attr: "${name}" has two "${op}" conditions`)
    entry[op] = value
  }
  return filter
}

function isFilterKey(key: string): key is FilterKey {
  return (FILTER_KEYS as readonly string[]).includes(key)
}

function unknownKey(key: string) {
  const shown = key.length > 40 ? `${key.slice(0, 40)}…` : key
  return badRequest(`unknown filter "${shown}" (known: ${FILTER_KEYS.join(', ')})`)
}
