/**
 * An appended event's accumulator adds on Postgres and MySQL, in the append's transaction
 * (event_append.ts), a few statements whatever the number of adds:
 *
 * - on Postgres, first (taken by the event's insert: event_append.ts) a transaction advisory
 *   lock per slot (workflow, key) the adds name (dialect.lockNames), in one fixed order:
 *   appends to a slot run one after the other, so the read that follows sees the slot as the
 *   previous append left it. Without it, a read that waited for the lock of an open row
 *   rechecks that row alone (its snapshot predates the wait), misses the successor the append
 *   it waited for opened beside a full batch, and opens another. MySQL has no such locks and
 *   needs none: its locking read reads the newest committed rows, walking on past the closed
 *   row to that successor;
 * - one locking read of the open accumulators of those slots, in slot order (no two appends
 *   lock two slots in opposite orders). A claim passes over a row an append holds (SKIP
 *   LOCKED) and takes it at its next call; an append waiting for a row a claim holds then
 *   finds it closed and opens a new one. Where two appends open one at once (on MySQL, or
 *   after a claim), the unique key on (workflow, batch_key, is_open) fails the second, which is
 *   retried whole (retry.ts: nothing was applied) and then joins the first's;
 * - the plan, by the shared rules (event_batch_plan.ts);
 * - when it opens accumulators, one read of the ids they would take: an id its slot already
 *   uses refuses the append (E_INVALID_ARGUMENT; the transaction rolls back, so nothing at all
 *   is appended). An id another append is inserting meanwhile fails on the primary key, and
 *   the retry reads it;
 * - its writes, together (write_group.ts: ONE statement on Postgres, whose unique key on the
 *   open flag is checked at the end of the statement; one per kind on MySQL, closing a full
 *   accumulator before its successor is inserted).
 */
import { InvalidArgumentError } from '@cairn/core'
import type { EventBatchAdd } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import {
  slotOf,
  type AccumulatorWrite,
  type AddPlan,
  type StoredAccumulator,
} from './event_batch_plan.ts'
import { STORED_COLUMNS, toStored } from './event_batch_rows.ts'
import { Params } from './params.ts'
import { writeTogether, type GroupedWrite } from './write_group.ts'

/** The open accumulator of each slot `adds` name (that has one), locked until commit. */
export async function lockOpen(
  ctx: SqlContext,
  session: SqlSession,
  adds: readonly EventBatchAdd[],
): Promise<Map<string, StoredAccumulator>> {
  const p = new Params(ctx.dialect)
  const slots = adds.map((a) => `(${p.add(a.workflow)}, ${p.add(a.key)})`).join(', ')
  // `IS NOT NULL`, not `= 1`: MariaDB takes `= 1` for a lookup of one key of the unique index
  // and stops at a closed row's entry instead of walking on to its successor's (a racing-append
  // test saw two appends then open one each, and deadlock). The columns compare by code point
  // (COLLATE "C", VARBINARY): this is the slot order.
  const text = `SELECT ${STORED_COLUMNS} FROM ${ctx.tables.eventBatches}
    WHERE is_open IS NOT NULL AND (workflow, batch_key) IN (${slots})
    ORDER BY workflow, batch_key ${ctx.dialect.lockRows}`
  const open = new Map<string, StoredAccumulator>()
  for (const row of (await session.query(p.statement(text))).rows) {
    const acc = toStored(row)
    open.set(slotOf(acc.workflow, acc.key), acc)
  }
  return open
}

/** Refuses the append when an accumulator it opens would take an id its slot already uses. */
export async function refuseUsedIds(
  ctx: SqlContext,
  session: SqlSession,
  opened: readonly AccumulatorWrite[],
): Promise<void> {
  if (opened.length === 0) return
  const p = new Params(ctx.dialect)
  const text = `SELECT workflow, batch_key, id FROM ${ctx.tables.eventBatches}
    WHERE (workflow, batch_key, id) IN (${refList(p, opened)})`
  const used = new Set(
    (await session.query(p.statement(text))).rows.map((row) =>
      JSON.stringify([row[0], row[1], row[2]]),
    ),
  )
  const taken = opened.find((a) => used.has(JSON.stringify([a.workflow, a.key, a.id])))
  if (taken !== undefined)
    throw new InvalidArgumentError(
      `appendEvent: accumulator id ${JSON.stringify(taken.id)} of workflow "${taken.workflow}" is in use`,
    )
}

/** `(?, ?, ?), …`: the (workflow, key, id) of each accumulator, for a row-value IN list. */
export function refList(
  p: Params,
  accumulators: ReadonlyArray<{ workflow: string; key: string; id: string }>,
): string {
  return accumulators
    .map((a) => `(${p.add(a.workflow)}, ${p.add(a.key)}, ${p.add(a.id)})`)
    .join(', ')
}

/** The plan's rows: rewritten accumulators first (MySQL checks the open flag row by row). */
export function writePlan(ctx: SqlContext, session: SqlSession, plan: AddPlan): Promise<void> {
  const writes: GroupedWrite[] = [
    (p) => updateAccumulators(ctx, p, plan.updated),
    (p) => trimItems(ctx, p, plan.trimmed),
    (p) => insertAccumulators(ctx, p, plan.opened),
    (p) => putItems(ctx, p, plan),
  ]
  return writeTogether(ctx, session, writes)
}

function updateAccumulators(
  ctx: SqlContext,
  p: Params,
  rows: readonly AccumulatorWrite[],
): string | null {
  if (rows.length === 0) return null
  const columns = [
    ['workflow', 'text'],
    ['batch_key', 'text'],
    ['id', 'text'],
    ['mode', 'text'],
    ['size', 'bigint'],
    ['due_at', 'bigint'],
    ['is_open', 'int'],
  ] as const
  const values = rows.map((r) => [r.workflow, r.key, r.id, r.mode, r.size, r.dueAt, r.open ? 1 : 0])
  const source = ctx.dialect.rowSource(p, 'v', columns, values)
  const assign = (set: string) =>
    `${set}mode = v.mode, ${set}size = v.size, ${set}due_at = v.due_at,
      ${set}is_open = CASE WHEN v.is_open = 1 THEN 1 END`
  // The keys again as a list: a planner estimates it well (the row source looks like 100 rows
  // to Postgres), so each accumulator is found by its primary key.
  const on = `b.workflow = v.workflow AND b.batch_key = v.batch_key AND b.id = v.id
    AND (b.workflow, b.batch_key, b.id) IN (${refList(p, rows)})`
  return ctx.dialect.updateFrom(ctx.tables.eventBatches, 'b', source, on, assign)
}

function trimItems(ctx: SqlContext, p: Params, rows: readonly StoredAccumulator[]): string | null {
  if (rows.length === 0) return null
  return `DELETE FROM ${ctx.tables.eventBatchItems}
    WHERE (workflow, batch_key, batch_id) IN (${refList(p, rows)}) AND item_no > 1`
}

function insertAccumulators(
  ctx: SqlContext,
  p: Params,
  rows: readonly AccumulatorWrite[],
): string | null {
  if (rows.length === 0) return null
  const values = rows.map((r) => {
    const bound = [r.workflow, r.key, r.id, r.mode, r.firstAt, r.dueAt, r.size].map((v) => p.add(v))
    return `(${bound.join(', ')}, 1)`
  })
  return `INSERT INTO ${ctx.tables.eventBatches}
    (workflow, batch_key, id, mode, first_at, due_at, size, is_open) VALUES ${values.join(', ')}`
}

/** One row per add, the event's id and payload bound once (a payload may be large). */
function putItems(ctx: SqlContext, p: Params, plan: AddPlan): string | null {
  const [first] = plan.items
  if (first === undefined) return null
  const columns = [
    ['workflow', 'text'],
    ['batch_key', 'text'],
    ['batch_id', 'text'],
    ['item_no', 'bigint'],
  ] as const
  // Bound in text order: `?` placeholders are positional.
  const eventId = p.add(first.eventId, 'text')
  const payload = p.add(first.payload, 'text')
  const rows = plan.items.map((i) => [i.workflow, i.key, i.batchId, i.itemNo])
  const source = ctx.dialect.rowSource(p, 'v', columns, rows)
  return `INSERT INTO ${ctx.tables.eventBatchItems}
    (workflow, batch_key, batch_id, item_no, event_id, payload)
    SELECT v.workflow, v.batch_key, v.batch_id, v.item_no, ${eventId}, ${payload} FROM ${source}
    ${ctx.dialect.upsert(['workflow', 'batch_key', 'batch_id', 'item_no'], ['event_id', 'payload'])}`
}
