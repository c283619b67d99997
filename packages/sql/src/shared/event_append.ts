/**
 * appendEvent on Postgres and MySQL: the event's insert-if-absent and, when it was appended,
 * its accumulator adds (event_batch_writes.ts) in one transaction; an append without adds is
 * an autocommitted insert. Then, in its own statement, the prune (bounded, oldest first).
 */
import type { EventAppend, EventBatchAdd, EventPruning, EventRecord } from '@cairn/core/contracts'
import { checkEventBatchAdds } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { planAdds } from './event_batch_plan.ts'
import { lockOpen, refuseUsedIds, writePlan } from './event_batch_writes.ts'
import { EVENT_COLUMNS } from './event_rows.ts'
import { toSafeInteger } from './integers.ts'
import { Params } from './params.ts'

export async function appendEvent(
  ctx: SqlContext,
  event: EventRecord,
  prune: EventPruning,
  batches?: readonly EventBatchAdd[],
): Promise<EventAppend> {
  const adds = checkEventBatchAdds(batches, 'appendEvent') // refused before anything is written
  const outcome =
    adds.length === 0
      ? await insertEvent(ctx, ctx.pool, event, [])
      : await ctx.pool.transaction(async (session) => {
          const stored = await insertEvent(ctx, session, event, slotLocks(ctx, adds))
          if (!stored.appended) return stored // a retried publish adds nothing twice
          const plan = planAdds(adds, event, await lockOpen(ctx, session, adds))
          await refuseUsedIds(ctx, session, plan.opened)
          await writePlan(ctx, session, plan)
          return { ...stored, batches: plan.states }
        })
  // Best effort, after the commit: a failed prune must not fail (and so retry) an append that
  // is durable — the retry would find the event and report nothing joined.
  try {
    await ctx.pool.query(pruneStatement(ctx, event.id, prune))
  } catch {
    // The next publish prunes.
  }
  return outcome
}

/**
 * Inserts the event unless its id is taken, telling which happened, having taken the named
 * locks `locks` where the dialect has such locks (dialect.lockNames: Postgres).
 *
 * Postgres: ON CONFLICT DO NOTHING, whose row count says (it waits for a concurrent insert of
 * the id to commit); the locks ride on the same statement (a WITH query). MySQL's ON DUPLICATE
 * KEY UPDATE cannot say (with CLIENT_FOUND_ROWS, mysql2's default, a duplicate counts 1 like
 * an insert), so it reads first and inserts plainly: a concurrent insert of the id fails this
 * one on the primary key, and the retry reads the row.
 */
async function insertEvent(
  ctx: SqlContext,
  session: SqlSession,
  event: EventRecord,
  locks: readonly string[],
): Promise<EventAppend> {
  const skipped = (at: number | null) => ({
    // Gone again (pruned meanwhile, as the retry of an old publish may be): its own time.
    publishedAt: at ?? event.publishedAt,
    appended: false,
    batches: [],
  })
  if (ctx.dialect.name !== 'postgres') {
    const p = new Params(ctx.dialect)
    const lockText = locks.length === 0 ? null : ctx.dialect.lockNames(p, locks)
    if (lockText !== null) await session.query(p.statement(lockText))
    const stored = await readPublishedAt(ctx, session, event.id)
    if (stored !== null) return skipped(stored)
  }
  if ((await session.query(insertStatement(ctx, event, locks))).affected === 0)
    return skipped(await readPublishedAt(ctx, session, event.id))
  return { publishedAt: event.publishedAt, appended: true, batches: [] }
}

function insertStatement(ctx: SqlContext, event: EventRecord, locks: readonly string[]) {
  const { dialect, tables } = ctx
  const p = new Params(dialect)
  const into = `INSERT INTO ${tables.events} (${EVENT_COLUMNS})`
  if (dialect.name !== 'postgres') {
    const values = [event.id, event.name, event.payload, event.publishedAt].map((v) => p.add(v))
    return p.statement(`${into} VALUES (${values.join(', ')})`, true)
  }
  const lockText = locks.length === 0 ? null : dialect.lockNames(p, locks)
  const values = [
    p.add(event.id, 'text'),
    p.add(event.name, 'text'),
    p.add(event.payload, 'text'),
    p.add(event.publishedAt, 'bigint'),
  ].join(', ')
  // MATERIALIZED, counted: every lock is taken, before the row is inserted.
  const text =
    lockText === null
      ? `${into} VALUES (${values}) ON CONFLICT DO NOTHING`
      : `WITH locked AS MATERIALIZED (${lockText})
        ${into} SELECT ${values} FROM (SELECT count(*) FROM locked) AS l ON CONFLICT DO NOTHING`
  return p.statement(text, true)
}

/**
 * The names of the locks of the slots (workflow, key) `adds` name: an append holds them from
 * its event's insert to its commit (event_batch_writes.ts says why), qualified by the table,
 * so stores in two schemas of one database do not wait for each other.
 */
function slotLocks(ctx: SqlContext, adds: readonly EventBatchAdd[]): string[] {
  return adds.map((a) => JSON.stringify([ctx.tables.eventBatches, a.workflow, a.key]))
}

async function readPublishedAt(
  ctx: SqlContext,
  session: SqlSession,
  id: string,
): Promise<number | null> {
  const p = new Params(ctx.dialect)
  const text = `SELECT published_at FROM ${ctx.tables.events} WHERE id = ${p.add(id)}`
  const stored = (await session.query(p.statement(text))).rows[0]?.[0]
  return stored === undefined ? null : toSafeInteger(stored, 'published_at')
}

/**
 * At most `limit` of the oldest events before `before`, sparing `keepId`. The LIMIT sits in a
 * derived table: Postgres has no DELETE … LIMIT, and MySQL refuses LIMIT directly in an IN
 * subquery but takes it one level down.
 */
function pruneStatement(ctx: SqlContext, keepId: string, prune: EventPruning) {
  const p = new Params(ctx.dialect)
  const { events } = ctx.tables
  const text = `DELETE FROM ${events} WHERE id IN (SELECT id FROM (SELECT id FROM ${events}
    WHERE published_at < ${p.add(prune.before)} AND id <> ${p.add(keepId)}
    ORDER BY published_at LIMIT ${limitOf(prune)}) oldest)`
  return p.statement(text, true)
}

/** Written into the text, not bound: a bound LIMIT trips MySQL's prepared statements. */
function limitOf(prune: EventPruning): number {
  return Number.isSafeInteger(prune.limit) && prune.limit > 0 ? prune.limit : 0
}
