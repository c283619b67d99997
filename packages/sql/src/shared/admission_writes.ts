/**
 * Singleton admission on Postgres and MySQL (CreateRunOp.admission), in the batch's
 * transaction, in two passes around the waves (apply_batch.ts); each pass is a few statements
 * for the whole batch (admission_statements.ts), not a few per run.
 *
 * - Before the first wave, every key the batch touches is locked: the creates' keys are
 *   upserted with their limits (sorted), then all keys are read FOR UPDATE in key order. Every
 *   writer that admits or promotes on a key holds its lock, so their counts never race. An end
 *   does not need it: it only lowers a count (a batch of ends without creates is written
 *   unlocked, and its keys' waiters are promoted right after its commit, as are those of the
 *   keys this batch queues on: admission_settle.ts says why none is missed). Two batches
 *   creating new keys may still deadlock on the inserts; the server aborts one, and the call
 *   is retried whole (retry.ts), having applied nothing.
 * - After each wave, before the creates' lineage is written (the creates wrote their key
 *   columns themselves: op_columns.ts): each touched key's counts are read once (the wave's undecided creates
 *   left out), its waiters promoted into free slots, then each create is decided in batch
 *   order by the rule every store applies (decideAdmission), the counts kept in step: kept,
 *   queued, or deleted again (`full`: nothing written). A successor inheriting its
 *   predecessor's slot (continueAsNew) is kept without counting.
 *
 * Counts are read from the runs (READ COMMITTED on both servers: each statement sees what was
 * committed before it, and every admitter of the key committed before this one got the lock).
 */
import type { Admission, CreateRunOp, OpResult, StoreOp } from '@cairn/core/contracts'
import { decideAdmission, type AdmissionCounts } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import {
  countKeys,
  deleteRuns,
  holdsKey,
  idOf,
  insertKeys,
  lockKeys,
  lockOrder,
  markPromoted,
  oldestQueued,
  queueRuns,
  storeKeyColumn,
  type Key,
  type KeyRow,
  type QueuedRun,
} from './admission_statements.ts'

/**
 * The batch needs this pass: a create with admission. Ends naming a key do not (they are
 * settled after the commit: admission_settle.ts) unless a create rides in the same batch.
 */
export function carriesAdmission(op: StoreOp): boolean {
  return op.type === 'createRun' && op.admission !== undefined
}

/** The key a finish or a cancel names (its waiters are promoted into any free slot). */
export function releasedKey(op: StoreOp): Key | null {
  if (op.type === 'cancelRun' || op.type === 'finishRun') return op.admission ?? null
  return null
}

type AdmittedCreate = CreateRunOp & { admission: Admission }

export class AdmissionPass {
  /** Each locked key's row (limit, next queue number), kept in step as the batch queues runs. */
  readonly #rows = new Map<string, KeyRow>()
  /** Keys a create of the batch queued on, by id: settled after the commit (admission_settle.ts). */
  readonly #queuedOn = new Map<string, Key>()
  #promoted = false
  /** Admitting raises the key's `next_seq` (batch_admission.ts: for a writer that admits in-wave). */
  #bumps = false

  /** Runs were promoted (claimable at the batch time). */
  get promotedAny(): boolean {
    return this.#promoted
  }

  /** The keys the batch's creates queued runs on. */
  get queuedOn(): Key[] {
    return [...this.#queuedOn.values()]
  }

  /** The first pass: lock every key the batch touches. */
  static async lock(
    ctx: SqlContext,
    session: SqlSession,
    ops: readonly StoreOp[],
    bumpsOnAdmit = false,
  ): Promise<AdmissionPass> {
    const creates = new Map<string, Admission>()
    const keys = new Map<string, Key>()
    for (const op of ops) {
      const released = releasedKey(op)
      if (op.type === 'createRun' && op.admission !== undefined) {
        creates.set(idOf(op.admission), op.admission)
        keys.set(idOf(op.admission), op.admission)
      } else if (released !== null) keys.set(idOf(released), released)
    }
    const pass = new AdmissionPass()
    pass.#bumps = bumpsOnAdmit
    for (const [id, row] of await lockKeys(ctx, session, lockOrder(keys.values())))
      pass.#rows.set(id, row)
    // A key's first create adds its row (after the locks on existing keys: two batches adding
    // new keys may deadlock, then one is retried whole, having applied nothing).
    const missing = [...creates.entries()].filter(([id]) => !pass.#rows.has(id)).map(([, a]) => a)
    if (missing.length > 0) {
      await insertKeys(ctx, session, missing)
      for (const [id, row] of await lockKeys(ctx, session, lockOrder(missing)))
        pass.#rows.set(id, row)
    }
    return pass
  }

  /** A key locked outside the first pass (a requeue), with its row. */
  hold(key: Key, row: KeyRow): void {
    this.#rows.set(idOf(key), row)
  }

  /** The second pass, for one wave's ops and their results (replaced where a create queued or was refused). */
  async afterWave(
    ctx: SqlContext,
    session: SqlSession,
    ops: readonly StoreOp[],
    results: OpResult[],
    now: number,
  ): Promise<void> {
    const applied = (i: number) => results[i]?.status === 'applied'
    const creates = ops.flatMap((op, i) =>
      op.type === 'createRun' && op.admission !== undefined && applied(i)
        ? [{ op: op as AdmittedCreate, index: i }]
        : [],
    )
    const touched = new Map<string, Key>()
    for (const { op } of creates) touched.set(idOf(op.admission), op.admission)
    ops.forEach((op, i) => {
      const released = releasedKey(op)
      if (released !== null && applied(i)) touched.set(idOf(released), released)
    })
    if (touched.size === 0) return
    await this.#storeLimits(ctx, session, creates)
    // The creates wrote their key columns themselves (op_columns.ts: trailing create columns).
    const inheriting = await this.#inheritors(ctx, session, creates)
    const undecided = new Set(
      creates.filter(({ op }) => !inheriting.has(op.run.id)).map(({ op }) => op.run.id),
    )
    const keys = [...touched.values()]
    const counts = await countKeys(ctx, session, keys, undecided)
    const promoted = new Set<string>()
    for (const key of keys)
      if (await this.promote(ctx, session, key, now, counts)) promoted.add(idOf(key))
    // The ends whose freed slots promoted waiters say so (the engine looks for work at once).
    ops.forEach((op, i) => {
      const released = releasedKey(op)
      const result = results[i]
      if (released !== null && result?.status === 'applied' && promoted.has(idOf(released)))
        results[i] = { ...result, promoted: true }
    })
    await this.#decide(ctx, session, creates, inheriting, counts, results)
  }

  /** The newest applied create's limit becomes its key's (an `exists` changes nothing). */
  async #storeLimits(
    ctx: SqlContext,
    session: SqlSession,
    creates: ReadonlyArray<{ op: AdmittedCreate }>,
  ): Promise<void> {
    const newest = new Map<string, Admission>()
    for (const { op } of creates) newest.set(idOf(op.admission), op.admission)
    for (const [id, admission] of newest) {
      const row = this.#row(id)
      if (row.limit === admission.limit) continue
      await storeKeyColumn(ctx, session, admission, 'lim', admission.limit)
      row.limit = admission.limit
    }
  }

  /** Creates that take over their predecessor's slot (continueAsNew), by run id. */
  async #inheritors(
    ctx: SqlContext,
    session: SqlSession,
    creates: ReadonlyArray<{ op: AdmittedCreate }>,
  ): Promise<Set<string>> {
    const found = new Set<string>()
    for (const { op } of creates) {
      const from = op.admission.inheritFrom
      if (from !== undefined && (await holdsKey(ctx, session, from, op.admission, op.run.id)))
        found.add(op.run.id)
    }
    return found
  }

  /** Each create in batch order, the counts kept in step; then the writes that follow. */
  async #decide(
    ctx: SqlContext,
    session: SqlSession,
    creates: ReadonlyArray<{ op: AdmittedCreate; index: number }>,
    inheriting: ReadonlySet<string>,
    counts: Map<string, AdmissionCounts>,
    results: OpResult[],
  ): Promise<void> {
    const queued: QueuedRun[] = []
    const refused: string[] = []
    // Keys whose `next_seq` moves: each that queued a run, and (#bumps) each that admitted one.
    const moved = new Map<string, Key>()
    for (const { op, index } of creates) {
      if (inheriting.has(op.run.id)) continue
      const id = idOf(op.admission)
      const count = counts.get(id) ?? { admitted: 0, queued: 0 }
      const outcome = decideAdmission(op.admission, count, false)
      if (outcome.kind === 'admitted') {
        counts.set(id, { ...count, admitted: count.admitted + 1 })
        if (this.#bumps && !moved.has(id)) {
          this.#row(id).nextSeq++
          moved.set(id, op.admission)
        }
      } else if (outcome.kind === 'queued') {
        counts.set(id, { ...count, queued: count.queued + 1 })
        const row = this.#row(id)
        queued.push({ id: op.run.id, key: op.admission, seq: row.nextSeq++, unclaim: !!op.claim })
        results[index] = { status: 'applied', epoch: 0, queued: true }
        moved.set(id, op.admission)
        this.#queuedOn.set(id, op.admission)
      } else {
        refused.push(op.run.id)
        results[index] = outcome.result
      }
    }
    if (refused.length > 0) await deleteRuns(ctx, session, refused)
    if (queued.length > 0) await queueRuns(ctx, session, queued)
    for (const [id, key] of moved)
      await storeKeyColumn(ctx, session, key, 'next_seq', this.#row(id).nextSeq)
  }

  /** The key's oldest queued runs into its free slots; `counts` kept in step. True if any. */
  async promote(
    ctx: SqlContext,
    session: SqlSession,
    key: Key,
    now: number,
    counts: Map<string, AdmissionCounts>,
  ): Promise<boolean> {
    const id = idOf(key)
    const row = this.#rows.get(id)
    const count = counts.get(id)
    if (row === undefined || count === undefined) return false // no key row: nothing admitted
    const free = Math.min(row.limit - count.admitted, count.queued)
    if (free <= 0) return false
    const ids = await oldestQueued(ctx, session, key, free)
    if (ids.length === 0) return false
    const promoted = await markPromoted(ctx, session, ids, now)
    counts.set(id, { admitted: count.admitted + promoted, queued: count.queued - ids.length })
    if (promoted === 0) return false
    this.#promoted = true
    return true
  }

  #row(id: string): KeyRow {
    const row = this.#rows.get(id)
    // Every create's key was upserted, then locked, before the first wave.
    if (row === undefined) throw new Error(`admission: key ${JSON.stringify(id)} was not locked`)
    return row
  }
}
