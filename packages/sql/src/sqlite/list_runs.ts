/**
 * listRuns: newest first by (created_at, id), keyset-paginated so a page costs the same at
 * any depth. One statement per filter shape, cached. Fetches limit + 1 rows to know whether
 * there is a next page.
 */
import { InvalidArgumentError, checkLineageFilters } from '@cairn/core'
import type { ListRunsQuery, RunPage, RunStatus } from '@cairn/core/contracts'
import type { SQLInputValue } from 'node:sqlite'
import { decodeCursor, encodeCursor, parseSearchFilter, type SearchTerm } from '@cairn/core'
import { searchTermShape, searchTermSql } from '../shared/search_terms.ts'
import { RUN_COLUMNS, toRunRecord, type RunRow } from './row_mapping.ts'
import type { StatementCache } from './statement_cache.ts'

const DEFAULT_LIMIT = 50
const MAX_LIMIT = 1000

interface Shape {
  workflow: boolean
  parent: boolean
  statusCount: number | null
  cursor: boolean
  terms: readonly SearchTerm[]
  tag: boolean
  origin: boolean
}

export function listRuns(cache: StatementCache, query: ListRunsQuery): RunPage {
  const limit = validLimit(query.limit)
  checkLineageFilters(query)
  const statuses = statusList(query.status)
  if (statuses?.length === 0) return { runs: [], nextCursor: null }
  const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
  const terms = parseSearchFilter(query.searchAttributes)
  const shape = {
    workflow: query.workflow !== undefined,
    parent: query.parentRunId !== undefined,
    statusCount: statuses?.length ?? null,
    cursor: !!cursor,
    terms,
    tag: query.tag !== undefined,
    origin: query.originRunId !== undefined,
  }
  const params: SQLInputValue[] = [
    ...(query.tag !== undefined ? [query.tag] : []),
    ...(query.originRunId !== undefined ? [query.originRunId] : []),
    ...(query.workflow !== undefined ? [query.workflow] : []),
    ...(query.parentRunId !== undefined ? [query.parentRunId] : []),
    ...(statuses ?? []),
    ...terms.flatMap(termValues),
    ...(cursor ? [cursor.createdAt, cursor.id] : []),
    limit + 1,
  ]
  const rows = cache
    .get(shapeKey(shape), () => listSql(shape), true)
    .all(...params) as unknown as RunRow[]
  const runs = rows.slice(0, limit).map(toRunRecord)
  const last = runs[runs.length - 1]
  return { runs, nextCursor: rows.length > limit && last ? encodeCursor(last) : null }
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

function shapeKey(shape: Shape): string {
  return `list:${shape.workflow ? 'w' : '-'}:${shape.parent ? 'p' : '-'}:${shape.statusCount ?? '-'}:${shape.cursor ? 'c' : '-'}:${shape.terms.map(searchTermShape).join(',')}:${shape.tag ? 't' : '-'}${shape.origin ? 'o' : '-'}`
}

/** A term's bound values, in the order searchTermSql places them. */
function termValues(term: SearchTerm): SQLInputValue[] {
  const { type, text, number } = term.operand
  return [term.name, type, type === 'text' ? text : number]
}

function listSql(shape: Shape): string {
  // A tag's runs come from its range of cairn_run_tags, already in list order; the order and
  // the cursor use that table's copies of (created_at, id) so the key serves both.
  const [createdAt, id] = shape.tag ? ['t.run_created_at', 't.run_id'] : ['created_at', 'id']
  const where = [
    shape.tag ? 't.tag = ?' : null,
    // Served by the partial index cairn_runs_origin_created.
    shape.origin ? 'origin_run_id = ?' : null,
    shape.workflow ? 'workflow = ?' : null,
    // Served by the partial index cairn_runs_parent_created (a run's children are one range).
    shape.parent ? 'parent_run_id = ?' : null,
    shape.statusCount === null
      ? null
      : `status IN (${Array(shape.statusCount).fill('?').join(', ')})`,
    // Each term: the keys of one range of an attribute index (search_terms.ts).
    ...shape.terms.map((term) => searchTermSql(term, 'key', 'cairn_search_attributes', () => '?')),
    shape.cursor ? `(${createdAt}, ${id}) < (?, ?)` : null,
  ].filter((term) => term !== null)
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''
  const from = shape.tag
    ? 'cairn_run_tags t JOIN cairn_runs ON cairn_runs.key = t.run_key'
    : 'cairn_runs'
  const columns = shape.tag ? qualified(RUN_COLUMNS, 'cairn_runs') : RUN_COLUMNS
  return `SELECT ${columns} FROM ${from} ${whereSql} ORDER BY ${createdAt} DESC, ${id} DESC LIMIT ?`
}

/** `a, b` → `table.a, table.b`: run columns named apart from the tag table's. */
function qualified(columns: string, table: string): string {
  return columns
    .split(', ')
    .map((column) => `${table}.${column}`)
    .join(', ')
}
