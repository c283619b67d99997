/**
 * listRuns: newest (or oldest) first by (created_at, id), keyset-paginated so a page costs the same at
 * any depth. Fetches limit + 1 rows to know whether there is a next page. Ids compare by
 * code point because the id column is stored with a binary collation (Postgres `C`,
 * MySQL `utf8mb4_bin`): the same order as the memory and SQLite stores and the cursor.
 */
import { InvalidArgumentError } from '@cairn/core'
import {
  checkRunFilters,
  encodeCursor,
  listStart,
  parseSearchFilter,
  type RunWindowFilters,
} from '@cairn/core/store-kit'
import type { ListRunsQuery, RunFacetQuery, RunPage, RunStatus } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import { OPEN_UNDER_KEY } from './admission_keys.ts'
import { idContainsSql, likeContainsPattern } from './id_contains.ts'
import { Params } from './params.ts'
import { runColumns, toRunRecord } from './row_mapping.ts'
import {
  statusFilterShape,
  statusFilterSql,
  storedStatusFilter,
  storedStatusGroups,
  type StoredStatusFilter,
} from './blocked_status.ts'
import { searchTermSql } from './search_terms.ts'

const DEFAULT_LIMIT = 50
const MAX_LIMIT = 1000

export async function listRuns(ctx: SqlContext, query: ListRunsQuery): Promise<RunPage> {
  const limit = validLimit(query.limit)
  const { order, descending, after: cursor } = listStart(query)
  const p = new Params(ctx.dialect)
  const groups = storedStatusGroups(statusList(query.status))
  if (query.tag === undefined && groups.length > 1) {
    const rows = await unionByStatus(ctx, p, query, groups, { descending, cursor, limit })
    return page(rows, limit, order)
  }
  // A tag's runs come from its range of the tag table's key, already in list order: the
  // order and the cursor use that table's copies of (created_at, id) so the key serves both.
  const tagged = query.tag !== undefined
  const o = tagged
    ? { createdAt: 't.run_created_at', id: 't.run_id' }
    : { createdAt: 'r.created_at', id: 'r.id' }
  // Bound first: with positional placeholders the values go in the order the text has them.
  const tagTerm = tagged ? `t.tag = ${p.add(query.tag)}` : null
  const filters = runFilterSql(ctx, p, query, { tagJoined: tagged })
  if (filters === null) return { runs: [], nextCursor: null }
  const where = [
    tagTerm,
    ...filters,
    // The bare `created_at <=` (`>=`) is implied by the row comparison; MySQL and MariaDB only
    // turn it, not a row comparison, into an index range (a page then costs the same at any
    // depth, read forwards or backwards).
    cursor === null
      ? null
      : `${o.createdAt} ${descending ? '<=' : '>='} ${p.add(cursor.createdAt)} AND (${o.createdAt}, ${o.id}) ${descending ? '<' : '>'} (${p.add(cursor.createdAt)}, ${p.add(cursor.id)})`,
  ].filter((term) => term !== null)
  const from = tagged
    ? `${ctx.tables.runTags} t JOIN ${ctx.tables.runs} r ON r.key = t.run_key`
    : `${ctx.tables.runs} r`
  const direction = descending ? 'DESC' : 'ASC'
  const text = `SELECT ${runColumns('r')} FROM ${from}
    ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
    ORDER BY ${o.createdAt} ${direction}, ${o.id} ${direction} LIMIT ${p.add(limit + 1)}`
  const { rows } = await ctx.pool.query(p.statement(text))
  return page(rows, limit, order)
}

function page(rows: readonly unknown[][], limit: number, order: ListOrder): RunPage {
  const runs = rows.slice(0, limit).map((row) => toRunRecord(row))
  const last = runs[runs.length - 1]
  return { runs, nextCursor: rows.length > limit && last ? encodeCursor(last, order) : null }
}

type ListOrder = ReturnType<typeof listStart>['order']

interface Window {
  descending: boolean
  cursor: ReturnType<typeof listStart>['after']
  limit: number
}

/**
 * A list of several statuses as one ordered range of the status index
 * (cairn_runs_status_created) per stored status, merged: each branch reads at most `limit + 1`
 * rows in list order, whatever the table holds. A single `IN` over the index would need a sort
 * of every matching row, so planners walk the creation order and filter each row instead —
 * linear in the table when few runs have the statuses (661 ms at 1,000,000 runs on SQLite).
 */
async function unionByStatus(
  ctx: SqlContext,
  p: Params,
  query: ListRunsQuery,
  groups: readonly (readonly RunStatus[])[],
  window: Window,
): Promise<unknown[][]> {
  const direction = window.descending ? 'DESC' : 'ASC'
  const branches: string[] = []
  for (const [i, group] of groups.entries()) {
    // Bound branch by branch, in text order (positional placeholders).
    const filters = runFilterSql(ctx, p, { ...query, status: group }) as string[]
    const where = [...filters, cursorSql(p, 'r', window)].filter((term) => term !== null)
    branches.push(`SELECT * FROM (SELECT ${runColumns('r')} FROM ${ctx.tables.runs} r
      WHERE ${where.join(' AND ')}
      ORDER BY r.created_at ${direction}, r.id ${direction} LIMIT ${p.add(window.limit + 1)}) b${i}`)
  }
  const text = `SELECT * FROM (${branches.join(' UNION ALL ')}) u
    ORDER BY u.created_at ${direction}, u.id ${direction} LIMIT ${p.add(window.limit + 1)}`
  const { rows } = await ctx.pool.query(p.statement(text))
  return rows
}

/** The keyset condition after the cursor on alias `r`, or null on the first page. */
function cursorSql(p: Params, r: string, window: Window): string | null {
  const cursor = window.cursor
  if (cursor === null) return null
  const [cmp, strict] = window.descending ? ['<=', '<'] : ['>=', '>']
  return `${r}.created_at ${cmp} ${p.add(cursor.createdAt)} AND (${r}.created_at, ${r}.id) ${strict} (${p.add(cursor.createdAt)}, ${p.add(cursor.id)})`
}

/**
 * The conditions of `query`'s filters on runs aliased `r` (listRuns and facetRuns), binding
 * their values into `p`; null when they match no run (an empty status list). Validates.
 * `tagJoined`: the caller joins the tag table as `t` and filters `t.tag` itself (listRuns);
 * otherwise a tag filter is an EXISTS on the tag table.
 */
export function runFilterSql(
  ctx: SqlContext,
  p: Params,
  query: RunFacetQuery,
  options: { tagJoined?: boolean } = {},
): string[] | null {
  const statuses = statusList(query.status)
  const terms = parseSearchFilter(query.searchAttributes)
  const window = checkRunFilters(query)
  if (statuses?.length === 0) return null
  const where = [
    query.tag === undefined || options.tagJoined === true
      ? null
      : `EXISTS (SELECT 1 FROM ${ctx.tables.runTags} t WHERE t.run_key = r.key AND t.tag = ${p.add(query.tag)})`,
    // Runs made from one run: one range of the partial index cairn_runs_origin_created.
    query.originRunId === undefined ? null : `r.origin_run_id = ${p.add(query.originRunId)}`,
    query.workflow === undefined ? null : `r.workflow = ${p.add(query.workflow)}`,
    // A run's children: one range of the parent index (cairn_runs_parent_created).
    query.parentRunId === undefined ? null : `r.parent_run_id = ${p.add(query.parentRunId)}`,
    // Blocked runs are stored `waiting` (blocked_status.ts): that pair splits on the mark.
    statuses === null ? null : statusCondition(ctx, p, storedStatusFilter(statuses)),
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
    ...windowSql(p, window),
    // A key's open runs: one range of the admission index per status (cairn_runs_admission).
    query.admissionKey === undefined
      ? null
      : `r.admission_scope = ${p.add(query.admissionKey.scope)} AND r.admission_key = ${p.add(query.admissionKey.key)} AND r.status IN ${OPEN_UNDER_KEY}`,
  ].filter((term) => term !== null)
  return where
}

function statusCondition(ctx: SqlContext, p: Params, filter: StoredStatusFilter): string {
  return statusFilterSql('r', statusFilterShape(filter), () =>
    ctx.dialect.inList(p, 'r.status', filter.plain, 'text'),
  )
}

/** The version, creation and claimable windows and id substring conditions (run_filters.ts). */
function windowSql(p: Params, window: RunWindowFilters): string[] {
  const { version, createdFrom, createdBefore, claimableBefore, idContains } = window
  return [
    version === undefined ? null : `r.version = ${p.add(version)}`,
    createdFrom === undefined ? null : `r.created_at >= ${p.add(createdFrom)}`,
    createdBefore === undefined ? null : `r.created_at < ${p.add(createdBefore)}`,
    // available_at is NULL for parked and finished runs (CHECK cairn_runs_claimable_status),
    // so they never match. The planner may take it as a range of cairn_runs_claimable.
    claimableBefore === undefined ? null : `r.available_at < ${p.add(claimableBefore)}`,
    // Not indexable (a substring): filtered on the rows the other conditions reach.
    idContains === undefined ? null : idContainsSql('r.id', p.add(likeContainsPattern(idContains))),
  ].filter((term) => term !== null)
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
