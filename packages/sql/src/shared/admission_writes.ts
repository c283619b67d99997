/**
 * Singleton admission on Postgres and MySQL (CreateRunOp.admission), in the batch's
 * transaction, in two passes around the waves (apply_batch.ts):
 *
 * - Before the first wave, every key the batch touches is locked, in one order (scope, then
 *   key, by code unit) so two batches never wait on each other in a cycle: a create's key is
 *   upserted with the create's limit (the row lock is taken by the upsert), the key a finish
 *   or a cancel names is read FOR UPDATE. Everything that admits or promotes on a key holds
 *   this lock, so their counts never race; a run ending without naming its key (a direct
 *   store call, an engine of an earlier version) only lowers a count, which is harmless: its
 *   waiters move up at the key's next write.
 * - After each wave, before the creates' lineage is written: each applied create writes its
 *   key on its run, promotes the key's waiters into free slots, and is decided by the rule
 *   every store applies (decideAdmission): kept, queued, or deleted again (`full`: nothing
 *   written). Each applied finish naming its key, and each applied cancel of a run with one,
 *   promotes into the slot it freed.
 *
 * Counts are read from the runs (READ COMMITTED on both servers: each statement sees what was
 * committed before it, and every admitter of the key committed before this one got the lock).
 */
import type { Admission, CreateRunOp, OpResult, StoreOp } from '@cairn/core/contracts'
import { decideAdmission, queuedWaitingOn, type AdmissionCounts } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger } from './integers.ts'
import { Params } from './params.ts'

/** Statuses of a run of a key that is not over: queued, or holding a slot (blocked is stored `waiting`). */
const LIVE = "('queued', 'pending', 'running', 'waiting', 'parked')"

interface Key {
  scope: string
  key: string
}

/** The batch needs this module: a create with admission, a finish or cancel naming a key. */
export function carriesAdmission(op: StoreOp): boolean {
  return releasedKey(op) !== null || (op.type === 'createRun' && op.admission !== undefined)
}

/** The key a finish or a cancel frees a slot of and names (a `continued` run passes it on). */
function releasedKey(op: StoreOp): Key | null {
  if (op.type === 'cancelRun') return op.admission ?? null
  if (op.type === 'finishRun' && op.status !== 'continued') return op.admission ?? null
  return null
}

/** What the first pass learnt, for the second: each locked key's limit. */
export class AdmissionPass {
  readonly #limits = new Map<string, number>()
  readonly #promoted: string[] = []

  /** Runs promoted so far (claimable at the batch time). */
  get promotedAny(): boolean {
    return this.#promoted.length > 0
  }

  /** The first pass: lock every key the batch touches. */
  static async lock(
    ctx: SqlContext,
    session: SqlSession,
    ops: readonly StoreOp[],
  ): Promise<AdmissionPass> {
    const pass = new AdmissionPass()
    const creates = new Map<string, Admission>()
    const others = new Map<string, Key>()
    for (const op of ops) {
      const released = releasedKey(op)
      if (op.type === 'createRun' && op.admission !== undefined)
        creates.set(idOf(op.admission), op.admission)
      else if (released !== null) others.set(idOf(released), released)
    }
    const ids = [...new Set([...creates.keys(), ...others.keys()])].sort()
    for (const id of ids) {
      const create = creates.get(id)
      const key = create ?? (others.get(id) as Key)
      if (create !== undefined) await upsertKey(ctx, session, create)
      pass.#limits.set(id, await lockKey(ctx, session, key))
    }
    return pass
  }

  /** The second pass, for one wave's ops and their results (replaced where a create queued or was refused). */
  async afterWave(
    ctx: SqlContext,
    session: SqlSession,
    ops: readonly StoreOp[],
    results: OpResult[],
    now: number,
  ): Promise<void> {
    // A create not decided yet is inserted `pending`: no count may see it as admitted.
    const undecided = new Set(
      ops.flatMap((op, i) =>
        op.type === 'createRun' && op.admission !== undefined && results[i]?.status === 'applied'
          ? [op.run.id]
          : [],
      ),
    )
    for (const [i, op] of ops.entries()) {
      if (results[i]?.status !== 'applied') continue
      if (op.type === 'createRun' && op.admission !== undefined) {
        const admission = op.admission
        results[i] = await this.#admit(ctx, session, op, admission, results[i], undecided, now)
        undecided.delete(op.run.id)
      } else {
        const released = releasedKey(op)
        if (released !== null) await this.promote(ctx, session, released, now, undecided)
      }
    }
  }

  async #admit(
    ctx: SqlContext,
    session: SqlSession,
    op: CreateRunOp,
    admission: Admission,
    applied: OpResult,
    undecided: ReadonlySet<string>,
    now: number,
  ): Promise<OpResult> {
    const id = op.run.id
    await writeKeyColumns(ctx, session, id, admission)
    // A successor takes its predecessor's slot as it is: nothing to promote into, nothing to count.
    const inherits =
      admission.inheritFrom !== undefined &&
      (await holdsKey(ctx, session, admission.inheritFrom, admission, id))
    if (inherits) return applied
    await this.promote(ctx, session, admission, now, undecided)
    const counts = await countKey(ctx, session, admission, undecided)
    const outcome = decideAdmission(admission, counts, false)
    if (outcome.kind === 'admitted') return applied
    if (outcome.kind === 'full') {
      await deleteRun(ctx, session, id)
      return outcome.result
    }
    await queueRun(ctx, session, id, admission, op.claim !== undefined)
    return { status: 'applied', epoch: 0, queued: true }
  }

  /** A key locked outside the first pass (a requeue), with its limit. */
  hold(key: Key, limit: number): void {
    this.#limits.set(idOf(key), limit)
  }

  /** The key's oldest queued runs into its free slots (`except`: runs not counted). */
  async promote(
    ctx: SqlContext,
    session: SqlSession,
    key: Key,
    now: number,
    undecided: ReadonlySet<string>,
  ): Promise<void> {
    const limit = this.#limits.get(idOf(key))
    if (limit === undefined) return // no key row: nothing was ever admitted under it
    const { admitted, queued } = await countKey(ctx, session, key, undecided)
    const free = Math.min(limit - admitted, queued)
    if (free <= 0) return
    const ids = await oldestQueued(ctx, session, key, free)
    if (ids.length === 0) return
    await markPromoted(ctx, session, ids, now)
    this.#promoted.push(...ids)
  }
}

function idOf(key: Key): string {
  // Neither holds a NUL (admission_check.ts): the pair is unambiguous, and sorts by scope first.
  return `${key.scope}\u0000${key.key}`
}

async function readKeys(
  ctx: SqlContext,
  session: SqlSession,
  runIds: readonly string[],
): Promise<Map<string, Key>> {
  const keys = new Map<string, Key>()
  if (runIds.length === 0) return keys
  const p = new Params(ctx.dialect)
  const text = `SELECT id, admission_scope, admission_key FROM ${ctx.tables.runs}
    WHERE ${ctx.dialect.inList(p, 'id', runIds, 'text')} AND admission_scope IS NOT NULL`
  for (const row of (await session.query(p.statement(text))).rows)
    keys.set(row[0] as string, { scope: row[1] as string, key: row[2] as string })
  return keys
}

async function upsertKey(ctx: SqlContext, session: SqlSession, a: Admission): Promise<void> {
  const p = new Params(ctx.dialect)
  const text = `INSERT INTO ${ctx.tables.admissionKeys} (scope, admission_key, lim, next_seq)
    VALUES (${p.add(a.scope)}, ${p.add(a.key)}, ${p.add(a.limit)}, 0)
    ${ctx.dialect.upsert(['scope', 'admission_key'], ['lim'])}`
  await session.query(p.statement(text, true))
}

/** Locks the key's row; its limit (0 when the key has no row: nothing to promote). */
async function lockKey(ctx: SqlContext, session: SqlSession, key: Key): Promise<number> {
  const p = new Params(ctx.dialect)
  const text = `SELECT lim FROM ${ctx.tables.admissionKeys}
    WHERE scope = ${p.add(key.scope)} AND admission_key = ${p.add(key.key)} ${ctx.dialect.lockRows}`
  const [row] = (await session.query(p.statement(text))).rows
  return row === undefined ? 0 : toSafeInteger(row[0], 'lim')
}

function ofKey(p: Params, key: Key): string {
  return `admission_scope = ${p.add(key.scope)} AND admission_key = ${p.add(key.key)}`
}

async function countKey(
  ctx: SqlContext,
  session: SqlSession,
  key: Key,
  except: ReadonlySet<string>,
): Promise<AdmissionCounts> {
  const p = new Params(ctx.dialect)
  // Placeholders are bound in text order (MySQL's are positional): the key before the skip.
  const where = `${ofKey(p, key)} AND status IN ${LIVE}`
  const skip =
    except.size === 0 ? '' : `AND NOT ${ctx.dialect.inList(p, 'id', [...except], 'text')}`
  const text = `SELECT
      COALESCE(SUM(CASE WHEN status = 'queued' THEN 0 ELSE 1 END), 0),
      COALESCE(SUM(CASE WHEN status = 'queued' THEN 1 ELSE 0 END), 0)
    FROM ${ctx.tables.runs} WHERE ${where} ${skip}`
  const [row] = (await session.query(p.statement(text))).rows
  return {
    admitted: toSafeInteger(row?.[0] ?? 0, 'admitted'),
    queued: toSafeInteger(row?.[1] ?? 0, 'queued'),
  }
}

/**
 * `runId` holds the key for `successor` to inherit: it is not terminal, or it already ended
 * `continued` to the successor (its finish may land in the same wave as the create).
 */
async function holdsKey(
  ctx: SqlContext,
  session: SqlSession,
  runId: string,
  key: Key,
  successor: string,
): Promise<boolean> {
  const p = new Params(ctx.dialect)
  const text = `SELECT 1 FROM ${ctx.tables.runs}
    WHERE id = ${p.add(runId)} AND ${ofKey(p, key)}
    AND (status IN ${LIVE} OR (status = 'continued' AND continued_to = ${p.add(successor)}))`
  return (await session.query(p.statement(text))).rows.length > 0
}

async function writeKeyColumns(
  ctx: SqlContext,
  session: SqlSession,
  runId: string,
  key: Key,
): Promise<void> {
  const p = new Params(ctx.dialect)
  const text = `UPDATE ${ctx.tables.runs} SET admission_scope = ${p.add(key.scope)},
    admission_key = ${p.add(key.key)} WHERE id = ${p.add(runId)}`
  await session.query(p.statement(text, true))
}

async function deleteRun(ctx: SqlContext, session: SqlSession, runId: string): Promise<void> {
  const p = new Params(ctx.dialect)
  await session.query(
    p.statement(`DELETE FROM ${ctx.tables.runs} WHERE id = ${p.add(runId)}`, true),
  )
}

/** The run waits at the back of its key's queue; a create made with a claim takes no lease. */
export async function queueRun(
  ctx: SqlContext,
  session: SqlSession,
  runId: string,
  key: Key,
  unclaim: boolean,
): Promise<void> {
  const seq = await nextSeq(ctx, session, key)
  const p = new Params(ctx.dialect)
  const lease = unclaim ? ', lease_owner = NULL, lease_epoch = 0, turns = 0' : ''
  const text = `UPDATE ${ctx.tables.runs} SET status = 'queued', available_at = NULL,
    waiting_on = ${p.add(queuedWaitingOn(key.key))}, admission_seq = ${p.add(seq)}${lease}
    WHERE id = ${p.add(runId)}`
  await session.query(p.statement(text, true))
}

/** The key's next queue number, taken (the caller holds the key's lock). */
async function nextSeq(ctx: SqlContext, session: SqlSession, key: Key): Promise<number> {
  const read = new Params(ctx.dialect)
  const [row] = (
    await session.query(
      read.statement(
        `SELECT next_seq FROM ${ctx.tables.admissionKeys} WHERE scope = ${read.add(key.scope)}
          AND admission_key = ${read.add(key.key)}`,
      ),
    )
  ).rows
  const p = new Params(ctx.dialect)
  await session.query(
    p.statement(
      `UPDATE ${ctx.tables.admissionKeys} SET next_seq = next_seq + 1
        WHERE scope = ${p.add(key.scope)} AND admission_key = ${p.add(key.key)}`,
      true,
    ),
  )
  return toSafeInteger(row?.[0] ?? 0, 'next_seq')
}

async function oldestQueued(
  ctx: SqlContext,
  session: SqlSession,
  key: Key,
  count: number,
): Promise<string[]> {
  const p = new Params(ctx.dialect)
  const text = `SELECT id FROM ${ctx.tables.runs} WHERE ${ofKey(p, key)} AND status = 'queued'
    ORDER BY admission_seq LIMIT ${p.add(count)}`
  return (await session.query(p.statement(text))).rows.map((row) => row[0] as string)
}

async function markPromoted(
  ctx: SqlContext,
  session: SqlSession,
  ids: readonly string[],
  now: number,
): Promise<void> {
  const p = new Params(ctx.dialect)
  const text = `UPDATE ${ctx.tables.runs} SET status = 'pending', available_at = ${p.add(now)},
    waiting_on = NULL, admission_seq = NULL, updated_at = ${p.add(now)}
    WHERE ${ctx.dialect.inList(p, 'id', ids, 'text')} AND status = 'queued'`
  await session.query(p.statement(text, true))
}

/**
 * A failed run just requeued re-enters the key it holds (requeue.ts): it stays `pending` when a
 * slot is free and nobody waits, else it waits at the back of the queue. The caller locked the
 * key (lockKeyOf) before the run. True when queued.
 */
export async function reenterKey(
  ctx: SqlContext,
  session: SqlSession,
  runId: string,
  held: { key: Key; limit: number },
  now: number,
): Promise<boolean> {
  const pass = new AdmissionPass()
  pass.hold(held.key, held.limit)
  const except = new Set([runId])
  await pass.promote(ctx, session, held.key, now, except)
  const { admitted, queued } = await countKey(ctx, session, held.key, except)
  if (admitted < held.limit && queued === 0) return false
  await queueRun(ctx, session, runId, held.key, false)
  return true
}

/** The key a run holds, locked, with its limit; null for a run without one. */
export async function lockKeyOf(
  ctx: SqlContext,
  session: SqlSession,
  runId: string,
): Promise<{ key: Key; limit: number } | null> {
  const key = (await readKeys(ctx, session, [runId])).get(runId)
  if (key === undefined) return null
  return { key, limit: await lockKey(ctx, session, key) }
}
