/**
 * A failed run requeued re-enters the singleton key it holds (requeue.ts), on Postgres and
 * MySQL: it stays `pending` when a slot is free and nobody waits, else it waits at the back of
 * the key's queue — never refused (an operator's requeue must not lose the run).
 */
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { AdmissionPass } from './admission_writes.ts'
import {
  countKeys,
  idOf,
  lockKeys,
  queueRuns,
  readKeys,
  storeKeyColumn,
  type Key,
  type KeyRow,
} from './admission_statements.ts'

export interface HeldKey {
  key: Key
  row: KeyRow
}

/**
 * The key `runId` was admitted under, read OUTSIDE the requeue's transaction (a run's key never
 * changes once written): a read inside it would fix a REPEATABLE READ snapshot (a borrowed
 * MySQL pool) before the key's lock is taken, and the count would miss admissions that
 * committed while the requeue waited for it.
 */
export async function keyOf(ctx: SqlContext, runId: string): Promise<Key | null> {
  return (await readKeys(ctx, ctx.pool, [runId])).get(runId) ?? null
}

/** Locks `key` (before the run: keys first, then runs, as every admission writer). */
export async function lockKey(
  ctx: SqlContext,
  session: SqlSession,
  key: Key | null,
): Promise<HeldKey | null> {
  if (key === null) return null
  const row = (await lockKeys(ctx, session, [key])).get(idOf(key))
  return row === undefined ? null : { key, row }
}

/** After the run was set `pending`: promote waiters first, then keep it or queue it. True when queued. */
export async function reenterKey(
  ctx: SqlContext,
  session: SqlSession,
  runId: string,
  held: HeldKey,
  now: number,
): Promise<boolean> {
  const pass = new AdmissionPass()
  pass.hold(held.key, held.row)
  const counts = await countKeys(ctx, session, [held.key], new Set([runId]))
  await pass.promote(ctx, session, held.key, now, counts)
  const { admitted, queued } = counts.get(idOf(held.key)) ?? { admitted: 0, queued: 0 }
  const seq = held.row.nextSeq
  if (admitted < held.row.limit && queued === 0) {
    // Kept: an admission, so the key's queue number moves (batch_admission.ts, Postgres: a
    // create admitted in its wave's statement sees it and lets the pass count again).
    await storeKeyColumn(ctx, session, held.key, 'next_seq', seq + 1)
    return false
  }
  await queueRuns(ctx, session, [{ id: runId, key: held.key, seq, unclaim: false }])
  await storeKeyColumn(ctx, session, held.key, 'next_seq', seq + 1)
  return true
}
