/**
 * The event calls of the StateStore (broadcast events), written once for Postgres and MySQL:
 * the log's read (one name since a time; appends are event_append.ts) and the registered waits
 * (read one name's, remove stale ones). Each call is one autocommitted statement: the log is
 * append-only, so no read here needs a lock.
 */
import type { EventRecord, EventWaitRecord, EventWaitRef } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import {
  EVENT_COLUMNS,
  EVENT_WAIT_COLUMNS,
  toEventRecord,
  toEventWaitRecord,
} from './event_rows.ts'
import { Params } from './params.ts'

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
