/**
 * Step log appends merged into their positions' rows (contracts/step_logs.ts) on Postgres and
 * MySQL, inside the caller's transaction. The caller holds a lock on each append's run row —
 * the batch's wave lock, or appendStepLogs' shared one — so a deleteRunTrees (which locks the
 * runs FOR UPDATE before deleting their rows) cannot delete the run before this commits and
 * leave a row behind.
 *
 * Three statements, whatever the number of appends:
 * 1. an empty record inserted where a position has none, duplicates ignored: a concurrent
 *    insert of the same position makes this one wait for it, then find it;
 * 2. the rows locked in key order (appends to one position queue behind each other, so none
 *    is lost; two callers take overlapping rows in the same order, so they do not deadlock);
 * 3. one UPDATE of the merged texts, by primary key.
 * The merge itself is store-kit's (mergeStepLogs), so a record is the same on every store.
 */
import {
  emptyStepLogDocument,
  mergeStepLogs,
  parseStepLogDocument,
  type StepLogDocument,
} from '@cairn/core/store-kit'
import type { StepLogAppend } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger } from './integers.ts'
import { Params } from './params.ts'

/** An append with its run's key (read by runKeys). */
export interface KeyedAppend {
  key: number
  append: StepLogAppend
}

/** A position: [run key, seq]. */
type Place = readonly [key: number, seq: number]

const EMPTY = JSON.stringify(emptyStepLogDocument())

/**
 * The keys of the runs of `ids` that exist, by id, read in key order. `lock`: a lock clause
 * (dialect.lockRowsShared), or '' where the caller's transaction already holds the rows.
 */
export async function runKeys(
  ctx: SqlContext,
  session: SqlSession,
  ids: readonly string[],
  lock: string,
): Promise<Map<string, number>> {
  const p = new Params(ctx.dialect)
  const text = `SELECT r.key, r.id FROM ${ctx.tables.runs} r
    WHERE ${ctx.dialect.inList(p, 'r.id', [...new Set(ids)], 'text')} ORDER BY r.key ${lock}`
  const { rows } = await session.query(p.statement(text))
  return new Map(rows.map(([key, id]) => [id as string, toSafeInteger(key, 'key')]))
}

/** Merges each append, in the order given, into its position's row. */
export async function mergeStepLogRows(
  ctx: SqlContext,
  session: SqlSession,
  appends: readonly KeyedAppend[],
  now: number,
): Promise<void> {
  if (appends.length === 0) return
  const places = placesOf(appends)
  await session.query(insertEmpty(ctx, places, now))
  const stored = await lockRows(ctx, session, places)
  const docs = new Map<string, StepLogDocument>()
  for (const { key, append } of appends) {
    const place = placeName(key, append.seq)
    const doc = docs.get(place) ?? parseStepLogDocument(stored.get(place) ?? null)
    docs.set(place, mergeStepLogs(doc, append))
  }
  const texts = places.map(([key, seq]) => JSON.stringify(docs.get(placeName(key, seq))))
  await session.query(updateRows(ctx, places, texts, now))
}

/** The appends' positions, once each, in key order: the order rows are inserted and locked in. */
function placesOf(appends: readonly KeyedAppend[]): Place[] {
  const places = new Map<string, Place>()
  for (const { key, append } of appends) places.set(placeName(key, append.seq), [key, append.seq])
  return [...places.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1])
}

function placeName(key: number, seq: number): string {
  return `${key}:${seq}`
}

function insertEmpty(ctx: SqlContext, places: readonly Place[], now: number) {
  const p = new Params(ctx.dialect)
  const rows = places.map(
    ([key, seq]) => `(${p.add(key)}, ${p.add(seq)}, ${p.add(EMPTY)}, ${p.add(now)})`,
  )
  const text = `INSERT INTO ${ctx.tables.stepLogs} (run_key, seq, logs, updated_at)
    VALUES ${rows.join(', ')} ${ctx.dialect.ignoreDuplicate('run_key')}`
  return p.statement(text, true)
}

/** The stored texts by position, each row locked until commit. */
async function lockRows(
  ctx: SqlContext,
  session: SqlSession,
  places: readonly Place[],
): Promise<Map<string, string>> {
  const p = new Params(ctx.dialect)
  const list = places.map(([key, seq]) => `(${p.add(key)}, ${p.add(seq)})`).join(', ')
  const text = `SELECT run_key, seq, logs FROM ${ctx.tables.stepLogs}
    WHERE (run_key, seq) IN (${list}) ORDER BY run_key, seq ${ctx.dialect.lockRows}`
  const { rows } = await session.query(p.statement(text))
  return new Map(
    rows.map(([key, seq, logs]) => [
      placeName(toSafeInteger(key, 'run_key'), toSafeInteger(seq, 'seq')),
      logs as string,
    ]),
  )
}

/**
 * A single-table UPDATE by primary key, the texts chosen by CASE: a multi-table UPDATE joined
 * to the rows' values may scan the table on MySQL, and wait for (or deadlock on) rows other
 * transactions hold; this one reads the listed keys only (and, in READ COMMITTED, a scan would
 * pass over rows it does not change without waiting).
 */
function updateRows(
  ctx: SqlContext,
  places: readonly Place[],
  texts: readonly string[],
  now: number,
) {
  const p = new Params(ctx.dialect)
  const cases = places.map(
    ([key, seq], i) =>
      `WHEN run_key = ${p.add(key)} AND seq = ${p.add(seq)} THEN ${p.add(texts[i])}`,
  )
  const at = p.add(now)
  const list = places.map(([key, seq]) => `(${p.add(key)}, ${p.add(seq)})`).join(', ')
  const text = `UPDATE ${ctx.tables.stepLogs} SET logs = CASE ${cases.join(' ')} END, updated_at = ${at}
    WHERE (run_key, seq) IN (${list})`
  return p.statement(text, true)
}
