/**
 * Retention on SQLite: the shared statements (shared/retention_reads.ts, run_tree_plan.ts)
 * with `?` placeholders, prepared per shape and kept; a deletion inside the caller's BEGIN
 * IMMEDIATE (the writer is alone: what the walk reads cannot change before it deletes).
 */
import type {
  DeleteRunTreesRequest,
  DeleteRunTreesResult,
  ExpiredRunsQuery,
  FinishedPosition,
  RetentionCutoffQuery,
} from '@cairn/core/contracts'
import { cutoffSql, expiredSql, toPosition } from '../shared/retention_reads.ts'
import { TREE_COLUMNS, toTreeRun } from '../shared/run_tree_delete.ts'
import { planTreeDeletion, readForestSync, type TreeRun } from '@cairn/core/store-kit'
import type { StatementCache } from './statement_cache.ts'

/** Ids or keys bound as one JSON array: one statement text for any count. */
const LIST = '(SELECT value FROM json_each(?))'

export function retentionCutoff(
  cache: StatementCache,
  query: RetentionCutoffQuery,
): FinishedPosition | null {
  const values: unknown[] = []
  const text = cutoffSql('cairn_runs', bindTo(values), query)
  const key = `retention:cutoff:${query.statuses.length}:${query.workflow === undefined}`
  const row = cache.get(key, () => text, true).get(...(values as never[]))
  return row === undefined ? null : toPosition(row as unknown as unknown[])
}

export function expiredRuns(cache: StatementCache, query: ExpiredRunsQuery): FinishedPosition[] {
  const values: unknown[] = []
  const text = expiredSql('cairn_runs', bindTo(values), query)
  const shape = `${query.statuses.length}:${query.workflow === undefined}:${query.after === undefined}`
  const rows = cache.get(`retention:expired:${shape}`, () => text, true).all(...(values as never[]))
  return rows.map((row) => toPosition(row as unknown as unknown[]))
}

/** Inside the caller's write transaction. */
export function deleteRunTrees(
  cache: StatementCache,
  request: DeleteRunTreesRequest,
): DeleteRunTreesResult {
  const forest = readForestSync(request.runIds, (column, values) => {
    const text = `SELECT ${TREE_COLUMNS} FROM cairn_runs r WHERE r.${column} IN ${LIST} ORDER BY r.id`
    const rows = cache.get(`retention:tree:${column}`, () => text, true).all(JSON.stringify(values))
    return rows.map((row) => toTreeRun(row as unknown as unknown[]))
  })
  const plan = planTreeDeletion(request, forest)
  deleteRows(cache, plan.doomed)
  return { trees: plan.trees }
}

/** Every row of `runs`: each table through its key or an index on the run key (or id). */
function deleteRows(cache: StatementCache, runs: readonly TreeRun[]): void {
  if (runs.length === 0) return
  const keys = JSON.stringify(runs.map((run) => run.key))
  for (const table of CHILD_TABLES) {
    const text = `DELETE FROM ${table} WHERE run_key IN ${LIST}`
    cache.get(`retention:delete:${table}`, () => text).run(keys)
  }
  const ids = JSON.stringify(runs.map((run) => run.id))
  const waits = `DELETE FROM cairn_event_waits WHERE run_id IN ${LIST}`
  cache.get('retention:delete:waits', () => waits).run(ids)
  const text = `DELETE FROM cairn_runs WHERE key IN ${LIST}`
  cache.get('retention:delete:runs', () => text).run(keys)
}

/** Tables keyed (or indexed) by run key: cairn_run_tags has `cairn_run_tags_run` here. */
const CHILD_TABLES = [
  'cairn_checkpoints',
  'cairn_messages',
  'cairn_search_attributes',
  'cairn_step_logs',
  'cairn_queue_items',
  'cairn_run_tags',
] as const

function bindTo(values: unknown[]): (value: unknown) => string {
  return (value) => {
    values.push(value)
    return '?'
  }
}
