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
  storeNextSeqs,
  type Key,
  type KeyRow,
} from './admission_statements.ts'

export interface HeldKey {
  key: Key
  row: KeyRow
}

/** The key `runId` holds, locked (call before locking the run: keys first, then runs). */
export async function lockKeyOf(
  ctx: SqlContext,
  session: SqlSession,
  runId: string,
): Promise<HeldKey | null> {
  const key = (await readKeys(ctx, session, [runId])).get(runId)
  if (key === undefined) return null
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
  if (admitted < held.row.limit && queued === 0) return false
  const seq = held.row.nextSeq
  await queueRuns(ctx, session, [{ id: runId, key: held.key, seq, unclaim: false }])
  await storeNextSeqs(ctx, session, [{ key: held.key, nextSeq: seq + 1 }])
  return true
}
