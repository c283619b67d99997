/**
 * deleteRunTrees on Postgres and MySQL (contracts/retention.ts): ONE transaction. The roots
 * are locked in id order (two deleters of one page queue behind each other, and the later
 * finds them gone), each root's parent is locked (a requeue of it waits for the commit),
 * each tree is walked by parent through `cairn_runs_parent_created` with its runs locked,
 * then the runs chosen go with every row of theirs: each child table by its key or index.
 */
import {
  checkDeleteRunTrees,
  isTerminalStatus,
  planTreeDeletion,
  readForest,
  type TreeRun,
} from '@cairn/core/store-kit'
import type { DeleteRunTreesRequest, DeleteRunTreesResult } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { deleteRunRows } from './run_rows_delete.ts'
import { readStatus } from './blocked_status.ts'
import { toSafeInteger, toSafeIntegerOrNull } from './integers.ts'
import { toTags } from './lineage_columns.ts'
import { Params } from './params.ts'

/** Most ids one statement binds (MySQL lists them; Postgres binds one array). */
const CHUNK = 500

/** Qualified by `r`: `key` is a reserved word on MySQL. */
export const TREE_COLUMNS = `r.key, r.id, r.status, r.parent_run_id, r.tags, r.created_at,
  r.lease_epoch, r.blocked_epoch, r.continued_to, r.finished_at`

export async function deleteRunTrees(
  ctx: SqlContext,
  request: DeleteRunTreesRequest,
): Promise<DeleteRunTreesResult> {
  checkDeleteRunTrees(request)
  return ctx.pool.transaction(async (session) => {
    const forest = await readForest(
      request.runIds,
      treeReader(ctx, session),
      parentIdReader(ctx, session),
    )
    const plan = planTreeDeletion(request, forest)
    await deleteRunRows(ctx, session, plan.doomed)
    return { trees: plan.trees }
  })
}

/** Locking reads of runs by `column` (id or parent_run_id), in id order, in chunks. */
function treeReader(ctx: SqlContext, session: SqlSession) {
  return async (column: 'id' | 'parent_run_id', values: readonly string[]): Promise<TreeRun[]> => {
    const found: TreeRun[] = []
    for (let i = 0; i < values.length; i += CHUNK) {
      const p = new Params(ctx.dialect)
      const where = ctx.dialect.inList(p, `r.${column}`, values.slice(i, i + CHUNK), 'text')
      const text = `SELECT ${TREE_COLUMNS} FROM ${ctx.tables.runs} r WHERE ${where}
        ORDER BY r.id FOR UPDATE`
      const { rows } = await session.query(p.statement(text))
      for (const row of rows) found.push(toTreeRun(row as unknown[]))
    }
    return found
  }
}

export /** The roots' parent ids, read without a lock (they are locked next, before the roots). */
function parentIdReader(ctx: SqlContext, session: SqlSession) {
  return async (ids: readonly string[]): Promise<string[]> => {
    const found = new Set<string>()
    for (let i = 0; i < ids.length; i += CHUNK) {
      const p = new Params(ctx.dialect)
      const where = ctx.dialect.inList(p, 'r.id', ids.slice(i, i + CHUNK), 'text')
      const text = `SELECT r.parent_run_id FROM ${ctx.tables.runs} r
        WHERE ${where} AND r.parent_run_id IS NOT NULL`
      for (const row of (await session.query(p.statement(text))).rows)
        found.add((row as unknown[])[0] as string)
    }
    return [...found].sort()
  }
}

export function toTreeRun(row: readonly unknown[]): TreeRun {
  const leaseEpoch = toSafeInteger(row[6], 'lease_epoch')
  const status = readStatus(row[2] as string, leaseEpoch, row[7])
  return {
    key: toSafeInteger(row[0], 'key'),
    id: row[1] as string,
    status,
    open: !isTerminalStatus(status),
    parentRunId: row[3] as string | null,
    continuedTo: row[8] as string | null,
    finishedAt: toSafeIntegerOrNull(row[9], 'finished_at'),
    tags: toTags(row[4]),
    createdAt: toSafeInteger(row[5], 'created_at'),
  }
}
