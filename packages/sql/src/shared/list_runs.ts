/**
 * listRuns: newest first by (created_at, id), keyset-paginated so a page costs the same at
 * any depth. Fetches limit + 1 rows to know whether there is a next page. Ids compare by
 * code point because the id column is stored with a binary collation (Postgres `C`,
 * MySQL `utf8mb4_bin`): the same order as the memory and SQLite stores and the cursor.
 */
import {
  InvalidArgumentError,
  checkLineageFilters,
  decodeCursor,
  encodeCursor,
  parseSearchFilter,
} from '@cairn/core'
import type { ListRunsQuery, RunPage, RunStatus } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import { Params } from './params.ts'
import { runColumns, toRunRecord } from './row_mapping.ts'
import { searchTermSql } from './search_terms.ts'

const DEFAULT_LIMIT = 50
const MAX_LIMIT = 1000

export async function listRuns(ctx: SqlContext, query: ListRunsQuery): Promise<RunPage> {
  const limit = validLimit(query.limit)
  checkLineageFilters(query)
  const statuses = statusList(query.status)
  if (statuses?.length === 0) return { runs: [], nextCursor: null }
  const cursor = query.cursor === undefined ? undefined : decodeCursor(query.cursor)
  const terms = parseSearchFilter(query.searchAttributes)
  const p = new Params(ctx.dialect)
  // A tag's runs come from its range of the tag table's key, already in list order: the
  // order and the cursor use that table's copies of (created_at, id) so the key serves both.
  const tagged = query.tag !== undefined
  const o = tagged
    ? { createdAt: 't.run_created_at', id: 't.run_id' }
    : { createdAt: 'r.created_at', id: 'r.id' }
  const where = [
    tagged ? `t.tag = ${p.add(query.tag)}` : null,
    // Runs made from one run: one range of the partial index cairn_runs_origin_created.
    query.originRunId === undefined ? null : `r.origin_run_id = ${p.add(query.originRunId)}`,
    query.workflow === undefined ? null : `r.workflow = ${p.add(query.workflow)}`,
    // A run's children: one range of the parent index (cairn_runs_parent_created).
    query.parentRunId === undefined ? null : `r.parent_run_id = ${p.add(query.parentRunId)}`,
    statuses === null ? null : ctx.dialect.inList(p, 'r.status', statuses, 'text'),
    // Each attribute condition: the run keys of one range of an attribute index.
    ...terms.map((term) =>
      searchTermSql(
        term,
        'r.key',
        ctx.tables.searchAttributes,
        (value) => p.add(value),
        (value) => ctx.dialect.double(p, value),
      ),
    ),
    // The bare `created_at <=` is implied by the row comparison; MySQL and MariaDB only turn
    // it, not a row comparison, into an index range (a page then costs the same at any depth).
    cursor === undefined
      ? null
      : `${o.createdAt} <= ${p.add(cursor.createdAt)} AND (${o.createdAt}, ${o.id}) < (${p.add(cursor.createdAt)}, ${p.add(cursor.id)})`,
  ].filter((term) => term !== null)
  const from = tagged
    ? `${ctx.tables.runTags} t JOIN ${ctx.tables.runs} r ON r.key = t.run_key`
    : `${ctx.tables.runs} r`
  const text = `SELECT ${runColumns('r')} FROM ${from}
    ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY ${o.createdAt} DESC, ${o.id} DESC LIMIT ${p.add(limit + 1)}`
  const { rows } = await ctx.pool.query(p.statement(text))
  const runs = rows.slice(0, limit).map((row) => toRunRecord(row))
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
