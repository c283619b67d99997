/**
 * listRuns: newest first by (created_at, id), keyset-paginated so a page costs the same at
 * any depth. One statement per filter shape, cached. Fetches limit + 1 rows to know whether
 * there is a next page.
 */
import { InvalidArgumentError } from '@cairn/core'
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
}

export function listRuns(cache: StatementCache, query: ListRunsQuery): RunPage {
  const limit = validLimit(query.limit)
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
  }
  const params: SQLInputValue[] = [
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
  return `list:${shape.workflow ? 'w' : '-'}:${shape.parent ? 'p' : '-'}:${shape.statusCount ?? '-'}:${shape.cursor ? 'c' : '-'}:${shape.terms.map(searchTermShape).join(',')}`
}

/** A term's bound values, in the order searchTermSql places them. */
function termValues(term: SearchTerm): SQLInputValue[] {
  const { type, text, number } = term.operand
  return [term.name, type, type === 'text' ? text : number]
}

function listSql(shape: Shape): string {
  const where = [
    shape.workflow ? 'workflow = ?' : null,
    // Served by the partial index cairn_runs_parent_created (a run's children are one range).
    shape.parent ? 'parent_run_id = ?' : null,
    shape.statusCount === null
      ? null
      : `status IN (${Array(shape.statusCount).fill('?').join(', ')})`,
    // Each term: the keys of one range of an attribute index (search_terms.ts).
    ...shape.terms.map((term) => searchTermSql(term, 'key', 'cairn_search_attributes', () => '?')),
    shape.cursor ? '(created_at, id) < (?, ?)' : null,
  ].filter((term) => term !== null)
  const whereSql = where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''
  return `SELECT ${RUN_COLUMNS} FROM cairn_runs ${whereSql} ORDER BY created_at DESC, id DESC LIMIT ?`
}
