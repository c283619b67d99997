/**
 * facetRuns: two grouped counts over the runs listRuns would return (same conditions,
 * runFilterSql), one ignoring the status filter and one ignoring the workflow filter. The
 * database counts; no run row leaves it. Two statements on the pool, not one transaction: the
 * contract says the counts may come from different snapshots.
 */
import { MAX_WORKFLOW_FACETS } from '@cairn/core/store-kit'
import type { RunFacetQuery, RunFacets, RunStatus } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import { toSafeInteger } from './integers.ts'
import { runFilterSql } from './list_runs.ts'
import { splitBlockedCount } from './blocked_status.ts'
import { Params } from './params.ts'

export async function facetRuns(ctx: SqlContext, query: RunFacetQuery): Promise<RunFacets> {
  const [byStatus, byWorkflow] = await Promise.all([
    countByStatus(ctx, { ...query, status: undefined }),
    countByWorkflow(ctx, { ...query, workflow: undefined }),
  ])
  return { byStatus, byWorkflow }
}

async function countByStatus(
  ctx: SqlContext,
  query: RunFacetQuery,
): Promise<RunFacets['byStatus']> {
  const p = new Params(ctx.dialect)
  const where = runFilterSql(ctx, p, query) ?? []
  const text = `SELECT r.status, COUNT(*) FROM ${ctx.tables.runs} r ${whereSql(where)} GROUP BY r.status`
  const { rows } = await ctx.pool.query(p.statement(text))
  const counts: RunFacets['byStatus'] = {}
  for (const [status, count] of rows as unknown[][])
    counts[status as RunStatus] = toSafeInteger(count, 'count')
  // Blocked runs are stored `waiting` (blocked_status.ts): counted apart, among those only.
  if (counts.waiting === undefined) return counts
  return splitBlockedCount(counts, await countRuns(ctx, { ...query, status: 'blocked' }))
}

async function countRuns(ctx: SqlContext, query: RunFacetQuery): Promise<number> {
  const p = new Params(ctx.dialect)
  const where = runFilterSql(ctx, p, query) ?? []
  const text = `SELECT COUNT(*) FROM ${ctx.tables.runs} r ${whereSql(where)}`
  const { rows } = await ctx.pool.query(p.statement(text))
  return toSafeInteger((rows as unknown[][])[0]?.[0] ?? 0, 'count')
}

async function countByWorkflow(
  ctx: SqlContext,
  query: RunFacetQuery,
): Promise<RunFacets['byWorkflow']> {
  const p = new Params(ctx.dialect)
  const where = runFilterSql(ctx, p, query)
  if (where === null) return [] // an empty status list matches no run
  // Ties in code point order, as on every store.
  const text = `SELECT r.workflow, COUNT(*) AS n FROM ${ctx.tables.runs} r ${whereSql(where)}
    GROUP BY r.workflow ORDER BY n DESC, ${ctx.dialect.byCodePoint('r.workflow')}
    LIMIT ${p.add(MAX_WORKFLOW_FACETS)}`
  const { rows } = await ctx.pool.query(p.statement(text))
  return (rows as unknown[][]).map(([workflow, count]) => ({
    workflow: workflow as string,
    count: toSafeInteger(count, 'count'),
  }))
}

function whereSql(where: readonly string[]): string {
  return where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''
}
