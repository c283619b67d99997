/**
 * The event wait rows that ride on batch ops (broadcast events), for the Postgres and MySQL
 * writers: after a wave, in the batch's transaction, for the ops of that wave that applied —
 * a suspend registers its `eventWaits`, a settled `event` checkpoint removes its wait, a
 * finish with `clearEventWaits` removes all of its run's. Only waves with such ops pay for
 * it, so the common batch keeps its statements (one per wave on Postgres).
 */
import type { OpResult, StoreOp } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { EVENT_WAIT_COLUMNS } from './event_rows.ts'
import { Params } from './params.ts'

/** True when `op` may write event wait rows if it applies. */
export function touchesEventWaits(op: StoreOp): boolean {
  switch (op.type) {
    case 'suspendRun':
      return (op.eventWaits?.length ?? 0) > 0
    case 'saveCheckpoint':
      return op.checkpoint.kind === 'event' && isSettled(op.checkpoint.status)
    case 'finishRun':
      return op.clearEventWaits === true
    default:
      return false
  }
}

/** Writes the event wait rows of the applied ops among `ops` (results in the same order). */
export async function writeEventWaits(
  ctx: SqlContext,
  session: SqlSession,
  ops: readonly StoreOp[],
  results: readonly OpResult[],
): Promise<void> {
  const applied = ops.filter((op, i) => results[i]?.status === 'applied' && touchesEventWaits(op))
  if (applied.length === 0) return
  const removed = applied.flatMap((op) =>
    op.type === 'saveCheckpoint' ? [[op.fence.runId, op.checkpoint.seq] as const] : [],
  )
  const cleared = applied.flatMap((op) => (op.type === 'finishRun' ? [op.fence.runId] : []))
  if (removed.length > 0) await session.query(removeAt(ctx, removed))
  if (cleared.length > 0) await session.query(removeOfRuns(ctx, cleared))
  const registered = applied.flatMap((op) =>
    op.type === 'suspendRun'
      ? (op.eventWaits ?? []).map((w) => [op.fence.runId, w.seq, w.name, w.match, w.startedAt])
      : [],
  )
  if (registered.length > 0) await session.query(register(ctx, registered))
}

function removeAt(ctx: SqlContext, places: ReadonlyArray<readonly [string, number]>) {
  const p = new Params(ctx.dialect)
  const list = places.map(([runId, seq]) => `(${p.add(runId)}, ${p.add(seq)})`).join(', ')
  return p.statement(`DELETE FROM ${ctx.tables.eventWaits} WHERE (run_id, seq) IN (${list})`, true)
}

function removeOfRuns(ctx: SqlContext, runIds: readonly string[]) {
  const p = new Params(ctx.dialect)
  const text = `DELETE FROM ${ctx.tables.eventWaits} WHERE ${ctx.dialect.inList(p, 'run_id', runIds, 'text')}`
  return p.statement(text, true)
}

/** A wait already registered at its place (an earlier suspend of the same wait) is kept. */
function register(ctx: SqlContext, rows: ReadonlyArray<readonly unknown[]>) {
  const p = new Params(ctx.dialect)
  const values = rows.map((row) => `(${row.map((value) => p.add(value)).join(', ')})`).join(', ')
  const text = `INSERT INTO ${ctx.tables.eventWaits} (${EVENT_WAIT_COLUMNS}) VALUES ${values}
    ${ctx.dialect.ignoreDuplicate('seq')}`
  return p.statement(text, true)
}

function isSettled(status: string): boolean {
  return status === 'completed' || status === 'failed'
}
