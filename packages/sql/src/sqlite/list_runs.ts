/**
 * listRuns: newest (or oldest) first by (created_at, id), keyset-paginated so a page costs the same at
 * any depth. One statement per filter shape, cached. Fetches limit + 1 rows to know whether
 * there is a next page.
 */
import { InvalidArgumentError } from '@cairn/core'
import { checkRunFilters } from '@cairn/core/store-kit'
import type { ListRunsQuery, RunFacetQuery, RunPage, RunStatus } from '@cairn/core/contracts'
import type { SQLInputValue } from 'node:sqlite'
import { encodeCursor, listStart, parseSearchFilter, type SearchTerm } from '@cairn/core/store-kit'
import { searchTermShape, searchTermSql } from '../shared/search_terms.ts'
import {
  statusFilterShape,
  statusFilterSql,
  storedStatusFilter,
  storedStatusGroups,
  type StatusFilterShape,
} from '../shared/blocked_status.ts'
import { OPEN_UNDER_KEY } from '../shared/admission_keys.ts'
import { RUN_COLUMNS, toRunRecord, type RunRow } from './row_mapping.ts'
import type { StatementCache } from './statement_cache.ts'

const DEFAULT_LIMIT = 50
const MAX_LIMIT = 1000

/** Which filters a query gives: the statement text depends on nothing else. */
interface Shape {
  workflow: boolean
  parent: boolean
  /** Blocked runs are stored `waiting` (blocked_status.ts): the pair splits on the mark. */
  status: StatusFilterShape | null
  terms: readonly SearchTerm[]
  version: boolean
  createdFrom: boolean
  createdBefore: boolean
  claimableBefore: boolean
  idContains: boolean
  tag: boolean
  origin: boolean
  admissionKey: boolean
}

/** A query's filters (listRuns and facetRuns): their shape and bound values, in text order. */
export interface RunFilter {
  shape: Shape
  params: SQLInputValue[]
}

export function listRuns(cache: StatementCache, query: ListRunsQuery): RunPage {
  const limit = validLimit(query.limit)
  const { order, descending, after: cursor } = listStart(query)
  const groups = storedStatusGroups(statusList(query.status))
  if (query.tag === undefined && groups.length > 1) {
    const rows = unionByStatus(cache, query, groups, { cursor, order, descending, limit })
    return page(rows, limit, order)
  }
  const filter = runFilter(query)
  if (filter === null) return { runs: [], nextCursor: null }
  const params: SQLInputValue[] = [
    ...filter.params,
    ...(cursor ? [cursor.createdAt, cursor.id] : []),
    limit + 1,
  ]
  // The order is part of the text (ORDER BY, the keyset comparison), so of the key.
  const key = `list:${shapeKey(filter.shape)}:${cursor ? 'c' : '-'}:${order}`
  const rows = cache
    .get(key, () => listSql(filter.shape, cursor !== null, descending), true)
    .all(...params) as unknown as RunRow[]
  return page(rows, limit, order)
}

type ListStart = ReturnType<typeof listStart>

function page(rows: readonly RunRow[], limit: number, order: ListStart['order']): RunPage {
  const runs = rows.slice(0, limit).map(toRunRecord)
  const last = runs[runs.length - 1]
  return { runs, nextCursor: rows.length > limit && last ? encodeCursor(last, order) : null }
}

interface Window {
  cursor: ListStart['after']
  order: ListStart['order']
  descending: boolean
  limit: number
}

/**
 * A list of several statuses as one ordered range of cairn_runs_status_created per stored
 * status, merged: each branch reads at most `limit + 1` rows in list order. One `IN` over the
 * index would need every matching row sorted, so the planner walks cairn_runs_created and
 * filters each row instead — the whole table when few runs have the statuses (661 ms at
 * 1,000,000 runs).
 */
function unionByStatus(
  cache: StatementCache,
  query: ListRunsQuery,
  groups: readonly (readonly RunStatus[])[],
  window: Window,
): RunRow[] {
  const filters = groups.map((group) => runFilter({ ...query, status: group }) as RunFilter)
  const cursor = window.cursor
  const params: SQLInputValue[] = [
    ...filters.flatMap((filter) => [
      ...filter.params,
      ...(cursor ? [cursor.createdAt, cursor.id] : []),
      window.limit + 1,
    ]),
    window.limit + 1,
  ]
  const shapes = filters.map((filter) => shapeKey(filter.shape)).join('|')
  const key = `list-union:${shapes}:${cursor ? 'c' : '-'}:${window.order}`
  const text = () => {
    const direction = window.descending ? 'DESC' : 'ASC'
    const branches = filters.map(
      (filter) => `SELECT * FROM (${listSql(filter.shape, cursor !== null, window.descending)})`,
    )
    return `SELECT * FROM (${branches.join(' UNION ALL ')})
      ORDER BY created_at ${direction}, id ${direction} LIMIT ?`
  }
  return cache.get(key, text, true).all(...params) as unknown as RunRow[]
}

/** The query's filters, validated; null when they match no run (an empty status list). */
export function runFilter(query: RunFacetQuery): RunFilter | null {
  const statuses = statusList(query.status)
  const terms = parseSearchFilter(query.searchAttributes)
  const { version, createdFrom, createdBefore, claimableBefore, idContains } =
    checkRunFilters(query)
  if (statuses?.length === 0) return null
  const stored = statuses === null ? null : storedStatusFilter(statuses)
  const shape = {
    workflow: query.workflow !== undefined,
    parent: query.parentRunId !== undefined,
    status: stored === null ? null : statusFilterShape(stored),
    terms,
    version: version !== undefined,
    createdFrom: createdFrom !== undefined,
    createdBefore: createdBefore !== undefined,
    claimableBefore: claimableBefore !== undefined,
    idContains: idContains !== undefined,
    tag: query.tag !== undefined,
    origin: query.originRunId !== undefined,
    admissionKey: query.admissionKey !== undefined,
  }
  const params: SQLInputValue[] = [
    ...(query.tag !== undefined ? [query.tag] : []),
    ...(query.originRunId !== undefined ? [query.originRunId] : []),
    ...(query.workflow !== undefined ? [query.workflow] : []),
    ...(query.parentRunId !== undefined ? [query.parentRunId] : []),
    ...(stored?.plain ?? []),
    ...terms.flatMap(termValues),
    ...[version, createdFrom, createdBefore, claimableBefore, idContains].filter(
      (value) => value !== undefined,
    ),
    ...(query.admissionKey !== undefined ? [query.admissionKey.scope, query.admissionKey.key] : []),
  ]
  return { shape, params }
}

function validLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT
  if (Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIMIT) return limit
  throw new InvalidArgumentError(
    `listRuns: limit must be an integer in 1..${MAX_LIMIT}, got ${limit}`,
  )
}

/** null: no status filter. An empty list matches no run. */
function statusList(status: ListRunsQuery['status']): readonly RunStatus[] | null {
  if (status === undefined) return null
  return typeof status === 'string' ? [status] : status
}

/** The statement cache key of a filter shape. */
export function shapeKey(shape: Shape): string {
  const window = [
    shape.version,
    shape.createdFrom,
    shape.createdBefore,
    shape.claimableBefore,
    shape.idContains,
  ]
  return `${shape.workflow ? 'w' : '-'}:${shape.parent ? 'p' : '-'}:${statusShapeKey(shape.status)}:${window.map((given) => (given ? 1 : 0)).join('')}:${shape.terms.map(searchTermShape).join(',')}:${shape.tag ? 't' : '-'}${shape.origin ? 'o' : '-'}${shape.admissionKey ? 'a' : '-'}`
}

/** A term's bound values, in the order searchTermSql places them. */
function termValues(term: SearchTerm): SQLInputValue[] {
  const { type, text, number } = term.operand
  return [term.name, type, type === 'text' ? text : number]
}

/**
 * The conditions of a filter shape, placeholders in RunFilter.params order. `tagJoined`: the
 * statement joins cairn_run_tags as `t` (listRuns); otherwise a tag is an EXISTS on it.
 */
export function filterConditions(shape: Shape, tagJoined = false): string[] {
  return [
    !shape.tag
      ? null
      : tagJoined
        ? 't.tag = ?'
        : 'EXISTS (SELECT 1 FROM cairn_run_tags t WHERE t.run_key = cairn_runs.key AND t.tag = ?)',
    // Served by the partial index cairn_runs_origin_created.
    shape.origin ? 'origin_run_id = ?' : null,
    shape.workflow ? 'workflow = ?' : null,
    // Served by the partial index cairn_runs_parent_created (a run's children are one range).
    shape.parent ? 'parent_run_id = ?' : null,
    shape.status === null ? null : statusCondition(shape.status),
    // Each term: the keys of one range of an attribute index (search_terms.ts).
    ...shape.terms.map((term) => searchTermSql(term, 'key', 'cairn_search_attributes', () => '?')),
    shape.version ? 'version = ?' : null,
    shape.createdFrom ? 'created_at >= ?' : null,
    shape.createdBefore ? 'created_at < ?' : null,
    // available_at is NULL for parked and finished runs: they never match.
    shape.claimableBefore ? 'available_at < ?' : null,
    // instr, not LIKE: SQLite's LIKE ignores ASCII case and would need its wildcards escaped.
    shape.idContains ? 'instr(id, ?) > 0' : null,
    // A key's open runs: one range of the admission index per status (cairn_runs_admission).
    shape.admissionKey
      ? `admission_scope = ? AND admission_key = ? AND cairn_runs.status IN ${OPEN_UNDER_KEY}`
      : null,
  ].filter((term) => term !== null)
}

function statusCondition(status: StatusFilterShape): string {
  const marks = Array<string>(status.plainCount).fill('?').join(', ')
  return statusFilterSql('cairn_runs', status, () => `cairn_runs.status IN (${marks})`)
}

function statusShapeKey(status: StatusFilterShape | null): string {
  if (status === null) return '-'
  return `${status.plainCount}${status.waitingOnly ? 'w' : ''}${status.blockedOnly ? 'b' : ''}`
}

function listSql(shape: Shape, cursor: boolean, descending: boolean): string {
  // A tag's runs come from its range of cairn_run_tags, already in list order; the order and
  // the cursor use that table's copies of (created_at, id) so the key serves both.
  const [createdAt, id] = shape.tag ? ['t.run_created_at', 't.run_id'] : ['created_at', 'id']
  const where = [
    ...filterConditions(shape, true),
    cursor ? `(${createdAt}, ${id}) ${descending ? '<' : '>'} (?, ?)` : null,
  ].filter((term) => term !== null)
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''
  const from = shape.tag
    ? 'cairn_run_tags t JOIN cairn_runs ON cairn_runs.key = t.run_key'
    : 'cairn_runs'
  const columns = shape.tag ? qualified(RUN_COLUMNS, 'cairn_runs') : RUN_COLUMNS
  const direction = descending ? 'DESC' : 'ASC'
  return `SELECT ${columns} FROM ${from} ${whereSql} ORDER BY ${createdAt} ${direction}, ${id} ${direction} LIMIT ?`
}

/** `a, b` → `table.a, table.b`: run columns named apart from the tag table's. */
function qualified(columns: string, table: string): string {
  return columns
    .split(', ')
    .map((column) => `${table}.${column}`)
    .join(', ')
}
