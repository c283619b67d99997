/**
 * The rows of deleted runs on Postgres and MySQL, each table through its key or an index:
 * checkpoints, messages, search attributes and step logs by their `(run_key, …)` primary
 * keys, queue items by `cairn_queue_items_run`, event waits by their `(run_id, seq)` key, tags
 * by their `(tag, run_created_at, run_id)` key (the run row lists its tags), then the runs by
 * key.
 */
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { Params } from './params.ts'
import type { TreeRun } from '@cairn/core/store-kit'

const CHUNK = 500
const TAG_CHUNK = 200

export async function deleteRunRows(
  ctx: SqlContext,
  session: SqlSession,
  runs: readonly TreeRun[],
): Promise<void> {
  const t = ctx.tables
  for (let i = 0; i < runs.length; i += CHUNK) {
    const chunk = runs.slice(i, i + CHUNK)
    const keys = chunk.map((run) => run.key)
    for (const table of [t.checkpoints, t.messages, t.searchAttributes, t.stepLogs, t.queueItems])
      await deleteWhere(ctx, session, table, 'run_key', keys, 'bigint')
    await deleteWhere(
      ctx,
      session,
      t.eventWaits,
      'run_id',
      chunk.map((run) => run.id),
      'text',
    )
    await deleteTags(ctx, session, chunk)
    await deleteWhere(ctx, session, t.runs, ctx.dialect.quoteIdent('key'), keys, 'bigint')
  }
}

async function deleteWhere(
  ctx: SqlContext,
  session: SqlSession,
  table: string,
  column: string,
  values: readonly unknown[],
  type: 'bigint' | 'text',
): Promise<void> {
  const p = new Params(ctx.dialect)
  const text = `DELETE FROM ${table} WHERE ${ctx.dialect.inList(p, column, values, type)}`
  await session.query(p.statement(text, true))
}

async function deleteTags(
  ctx: SqlContext,
  session: SqlSession,
  runs: readonly TreeRun[],
): Promise<void> {
  const all = runs.flatMap((run) => run.tags.map((tag) => [tag, run.createdAt, run.id] as const))
  // Short OR lists: MySQL's range optimizer gives up on a very long one (a scan instead).
  for (let i = 0; i < all.length; i += TAG_CHUNK)
    await deleteTagRows(ctx, session, all.slice(i, i + TAG_CHUNK))
}

async function deleteTagRows(
  ctx: SqlContext,
  session: SqlSession,
  rows: ReadonlyArray<readonly [string, number, string]>,
): Promise<void> {
  const p = new Params(ctx.dialect)
  const table = ctx.tables.runTags
  const text =
    ctx.dialect.name === 'postgres'
      ? // One statement text for any count: the keys as a record set, each looked up by key.
        `DELETE FROM ${table} t USING ${ctx.dialect.rowSource(p, 'x', TAG_KEY, rows)}
          WHERE t.tag = x.tag AND t.run_created_at = x.run_created_at AND t.run_id = x.run_id`
      : // An OR of whole-key equalities: one range of the primary key each.
        `DELETE FROM ${table} WHERE ${rows
          .map(
            ([tag, createdAt, id]) =>
              `(tag = ${p.add(tag)} AND run_created_at = ${p.add(createdAt)} AND run_id = ${p.add(id)})`,
          )
          .join(' OR ')}`
  await session.query(p.statement(text, true))
}

const TAG_KEY = [
  ['tag', 'text'],
  ['run_created_at', 'bigint'],
  ['run_id', 'text'],
] as const
