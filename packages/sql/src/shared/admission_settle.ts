/**
 * Waiters meet freed slots after the commits, on Postgres and MySQL: an end naming its key
 * (finishRun, cancelRun) is written without the key's lock, and the batch's one statement stays
 * autocommitted; right after it commits, one unlocked read finds the keys that have a waiter
 * and a free slot, and only those take the key's lock to promote (promoteKey).
 *
 * Why nothing is missed — two writers that each commit, then read what the other wrote:
 * - an end commits (its run no longer counts), then reads the key's waiters;
 * - a create that queued commits (under the key's lock), then reads the key's counts
 *   (applyBatch settles the keys its creates queued on).
 * Each read sees everything committed before it started (autocommitted reads on both servers).
 * If the end's read missed the queued run, that run committed after the end, so the create's
 * read, later still, sees the end and the free slot; either way one of them promotes, under the
 * key's lock, by the rule every writer applies. A process that dies between a commit and its
 * read leaves the waiter to the stranded-waiters sweep (engine/stranded_waiters.ts), as an end
 * that names no key does.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { SqlContext, WakeContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { AdmissionPass } from './admission_writes.ts'
import {
  ADMITTED_STATUSES,
  countKeys,
  idOf,
  keySource,
  lockKeys,
  lockOrder,
  type Key,
} from './admission_statements.ts'
import { Params } from './params.ts'

/**
 * Of `keys`, those with at least one queued run and fewer admitted runs than their stored
 * limit, as committed now: one statement, each key one probe of the runs' admission index
 * (and, only for a key with a waiter, one range over its admitted runs).
 */
export async function keysWithRoom(
  ctx: SqlContext,
  session: SqlSession,
  keys: readonly Key[],
): Promise<Key[]> {
  const p = new Params(ctx.dialect)
  const { runs, admissionKeys } = ctx.tables
  const source = keySource(ctx, p, 's', keys)
  const ofKey = `r.admission_scope = k.scope AND r.admission_key = k.admission_key`
  const text = `SELECT k.scope, k.admission_key FROM ${source}
    JOIN ${admissionKeys} k ON k.scope = s.scope AND k.admission_key = s.admission_key
    WHERE EXISTS (SELECT 1 FROM ${runs} r WHERE ${ofKey} AND r.status = 'queued')
    AND (SELECT COUNT(*) FROM ${runs} r WHERE ${ofKey} AND r.status IN ${ADMITTED_STATUSES}) < k.lim`
  return (await session.query(p.statement(text))).rows.map((row) => ({
    scope: row[0] as string,
    key: row[1] as string,
  }))
}

/**
 * Promotes `key`'s oldest waiters into its free slots in one transaction under its lock (the
 * count re-read there: the unlocked read only said where to look). Runs promoted.
 */
export async function promoteKey(ctx: WakeContext, key: Key, now: number): Promise<number> {
  return ctx.pool.transaction(async (session) => {
    const row = (await lockKeys(ctx, session, [key])).get(idOf(key))
    if (row === undefined) return 0 // no row: nothing was ever admitted under it
    const pass = new AdmissionPass()
    pass.hold(key, row)
    const counts = await countKeys(ctx, session, [key], new Set())
    const before = counts.get(idOf(key))?.admitted ?? 0
    await pass.promote(ctx, session, key, now, counts)
    const promoted = (counts.get(idOf(key))?.admitted ?? 0) - before
    if (promoted > 0 && ctx.wakeStatement !== undefined) await session.query(ctx.wakeStatement(now))
    return promoted
  })
}

/** Attempts of a settle whose read or promotion fails (a lost connection, a deadlock). */
const SETTLE_ATTEMPTS = 3
const SETTLE_BACKOFF_MS = 50

/**
 * After a batch committed: the keys of `keys` whose waiters were promoted, by id (idOf). Tried
 * again on a failure (reading and promoting again is harmless: the promotion counts under the
 * key's lock); a failure past that, or a fatal one, is not the batch's — it is committed — and
 * its waiters are left to the stranded-waiters sweep (engine/stranded_waiters.ts), which looks
 * at every waiting key in turn.
 */
export async function settleKeys(
  ctx: WakeContext,
  keys: readonly Key[],
  now: number,
): Promise<Set<string>> {
  const promoted = new Set<string>()
  const unique = [...new Map(keys.map((key) => [idOf(key), key])).values()]
  for (let attempt = 1; unique.length > 0 && attempt <= SETTLE_ATTEMPTS; attempt++) {
    try {
      for (const key of lockOrder(await keysWithRoom(ctx, ctx.pool, unique)))
        if ((await promoteKey(ctx, key, now)) > 0) promoted.add(idOf(key))
      return promoted
    } catch (error) {
      if (ctx.pool.classify(error) === 'fatal') return promoted
      // A moment before the next try (a failover, a deadlock victim's rival finishing).
      if (attempt < SETTLE_ATTEMPTS) await sleep(SETTLE_BACKOFF_MS * attempt)
    }
  }
  return promoted
}
