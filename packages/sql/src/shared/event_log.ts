/**
 * The event calls of the StateStore (broadcast events), written once for Postgres and MySQL:
 * the log (append, prune, read one name since a time) and the registered waits (read one
 * name's, remove stale ones). Each call is one or two autocommitted statements: the log is
 * append-only, so no read here needs a lock.
 */
import type {
  EventPruning,
  EventRecord,
  EventWaitRecord,
  EventWaitRef,
} from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import {
  EVENT_COLUMNS,
  EVENT_WAIT_COLUMNS,
  toEventRecord,
  toEventWaitRecord,
} from './event_rows.ts'
import { toSafeInteger } from './integers.ts'
import { Params } from './params.ts'

/** Inserts unless the id is taken, prunes, and reads back the stored publication time. */
export async function appendEvent(
  ctx: SqlContext,
  event: EventRecord,
  prune: EventPruning,
): Promise<{ publishedAt: number }> {
  const { dialect, tables, pool } = ctx
  const p = new Params(dialect)
  const values = [event.id, event.name, event.payload, event.publishedAt].map((v) => p.add(v))
  const insert = `INSERT INTO ${tables.events} (${EVENT_COLUMNS}) VALUES (${values.join(', ')})
    ${dialect.ignoreDuplicate('id')}`
  await pool.query(p.statement(insert, true))
  await pool.query(pruneStatement(ctx, event.id, prune))
  const read = new Params(dialect)
  const { rows } = await pool.query(
    read.statement(`SELECT published_at FROM ${tables.events} WHERE id = ${read.add(event.id)}`),
  )
  const stored = rows[0]?.[0]
  return {
    publishedAt: stored === undefined ? event.publishedAt : toSafeInteger(stored, 'published_at'),
  }
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

export async function loadEvents(
  ctx: SqlContext,
  name: string,
  since: number,
): Promise<EventRecord[]> {
  const p = new Params(ctx.dialect)
  const text = `SELECT ${EVENT_COLUMNS} FROM ${ctx.tables.events}
    WHERE name = ${p.add(name)} AND published_at >= ${p.add(since)} ORDER BY published_at, id`
  const { rows } = await ctx.pool.query(p.statement(text))
  return rows.map((row) => toEventRecord(row))
}

export async function loadEventWaits(ctx: SqlContext, name: string): Promise<EventWaitRecord[]> {
  const p = new Params(ctx.dialect)
  const text = `SELECT ${EVENT_WAIT_COLUMNS} FROM ${ctx.tables.eventWaits} WHERE name = ${p.add(name)}`
  const { rows } = await ctx.pool.query(p.statement(text))
  return rows.map((row) => toEventWaitRecord(row))
}

export async function removeEventWaits(
  ctx: SqlContext,
  waits: readonly EventWaitRef[],
): Promise<number> {
  if (waits.length === 0) return 0
  const p = new Params(ctx.dialect)
  const places = waits.map(({ runId, seq }) => `(${p.add(runId)}, ${p.add(seq)})`).join(', ')
  const text = `DELETE FROM ${ctx.tables.eventWaits} WHERE (run_id, seq) IN (${places})`
  const { affected } = await ctx.pool.query(p.statement(text, true))
  return affected
}
