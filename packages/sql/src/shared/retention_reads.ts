/**
 * retentionCutoff and expiredRuns on every SQL store: one index range per status over
 * `cairn_runs_finished (status, finished_at, id)` or `cairn_runs_workflow_finished (workflow,
 * status, finished_at, id)` (migration 20), each read in index order and cut at the limit,
 * merged by a UNION ALL — never a sort of the table. Every branch states `finished_at IS NOT
 * NULL`, the partial indexes' predicate (a generic plan on Postgres may use them too). The
 * text depends only on the status count and which bounds are given, never on the values.
 */
import { checkExpiredRuns, checkRetentionCutoff } from '@cairn/core/store-kit'
import type {
  ExpiredRunsQuery,
  FinishedPosition,
  RetentionCutoffQuery,
  TerminalStatus,
} from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import { toSafeInteger } from './integers.ts'
import { TERMINAL_STATUSES } from './op_columns.ts'
import { Params } from './params.ts'

/** Parents whose finished children may go (run_tree_plan.ts DONE_WITH_CHILDREN). */
const DONE_WITH_CHILDREN = "('completed', 'cancelled', 'continued')"

/** Binds a value and returns its placeholder. */
export type Bind = (value: unknown) => string

export async function retentionCutoff(
  ctx: SqlContext,
  query: RetentionCutoffQuery,
): Promise<FinishedPosition | null> {
  checkRetentionCutoff(query)
  const p = new Params(ctx.dialect)
  const { rows } = await ctx.pool.query(
    p.statement(cutoffSql(ctx.tables.runs, (v) => p.add(v), query)),
  )
  return rows.length === 0 ? null : toPosition(rows[0] as unknown[])
}

export async function expiredRuns(
  ctx: SqlContext,
  query: ExpiredRunsQuery,
): Promise<FinishedPosition[]> {
  checkExpiredRuns(query)
  const p = new Params(ctx.dialect)
  const { rows } = await ctx.pool.query(
    p.statement(expiredSql(ctx.tables.runs, (v) => p.add(v), query, ctx.dialect.useIndex)),
  )
  return rows.map((row) => toPosition(row as unknown[]))
}

/** The `keepNewest`-th newest run of the scope: each status's newest, merged, then offset. */
export function cutoffSql(runs: string, bind: Bind, query: RetentionCutoffQuery): string {
  const branch = (status: TerminalStatus) =>
    `SELECT r.finished_at, r.id FROM ${runs} r WHERE ${scope(bind, status, query.workflow)}
      ORDER BY r.finished_at DESC, r.id DESC LIMIT ${bind(query.keepNewest)}`
  return `${merged(query.statuses.map(branch))}
    ORDER BY finished_at DESC, id DESC LIMIT 1 OFFSET ${bind(query.keepNewest - 1)}`
}

export function expiredSql(
  runs: string,
  bind: Bind,
  query: ExpiredRunsQuery,
  useIndex: (name: string) => string = () => '',
): string {
  const { before, after, limit } = query
  // MariaDB took `ref` on the status alone past a cursor (a walk from the oldest run up to
  // `after`, growing with it): the index is named so it reads the (status, finished_at) range.
  const index = useIndex(
    query.workflow === undefined ? 'cairn_runs_finished' : 'cairn_runs_workflow_finished',
  )
  const branch = (status: TerminalStatus) => {
    const terms = [
      scope(bind, status, query.workflow),
      // The bare bounds are what MySQL and MariaDB turn into an index range (list_runs.ts).
      `r.finished_at <= ${bind(before.finishedAt)}`,
      `(r.finished_at, r.id) < (${bind(before.finishedAt)}, ${bind(before.runId)})`,
      after === undefined ? null : `r.finished_at >= ${bind(after.finishedAt)}`,
      after === undefined
        ? null
        : `(r.finished_at, r.id) > (${bind(after.finishedAt)}, ${bind(after.runId)})`,
      // Never a run its parent may still read: open, or failed or dead (a requeue replays).
      // A bare NOT EXISTS (true for a NULL link anyway): Postgres plans it as an anti-join by
      // the id index; wrapped in `IS NULL OR`, it became a hashed SubPlan over the whole table.
      `NOT EXISTS (SELECT 1 FROM ${runs} o
        WHERE o.id = r.parent_run_id AND o.status NOT IN ${DONE_WITH_CHILDREN})`,
      // Nor a continued run whose successor is open (it reads its predecessor first).
      `NOT EXISTS (SELECT 1 FROM ${runs} s
        WHERE s.id = r.continued_to AND s.status NOT IN ${TERMINAL_STATUSES})`,
    ].filter((term) => term !== null)
    return `SELECT r.finished_at, r.id FROM ${runs} r ${index} WHERE ${terms.join(' AND ')}
      ORDER BY r.finished_at, r.id LIMIT ${bind(limit)}`
  }
  return `${merged(query.statuses.map(branch))} ORDER BY finished_at, id LIMIT ${bind(limit)}`
}

export function toPosition(row: readonly unknown[]): FinishedPosition {
  return { finishedAt: toSafeInteger(row[0], 'finished_at'), runId: row[1] as string }
}

function scope(bind: Bind, status: TerminalStatus, workflow: string | undefined): string {
  const of = workflow === undefined ? '' : `r.workflow = ${bind(workflow)} AND `
  return `${of}r.status = ${bind(status)} AND r.finished_at IS NOT NULL`
}

/** Each branch a derived table (its ORDER BY and LIMIT kept), all of them one more. */
function merged(branches: readonly string[]): string {
  const union = branches
    .map((branch, i) => `SELECT finished_at, id FROM (${branch}) b${i}`)
    .join(' UNION ALL ')
  return `SELECT finished_at, id FROM (${union}) u`
}
