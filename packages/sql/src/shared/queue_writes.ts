/**
 * Named queues on Postgres and MySQL (SaveCheckpointOp.enqueue / release,
 * FinishRunOp.releaseQueues, cancelRun), in the batch's transaction, in two passes around the
 * waves (apply_batch.ts), as singleton admission does (admission_writes.ts):
 *
 * - Before the first wave, every queue the batch touches is locked, in code point order: the
 *   queues named by its saves and finishes, and those its cancels' runs have items in (a
 *   cancel finds them itself). An enqueue's queue without a row gets one first (after the
 *   locks on existing rows: two batches adding new queues may deadlock, then one is retried
 *   whole, having applied nothing). Every writer granting in a queue holds its lock, so slot
 *   counts never race.
 * - After each wave, the ops of the wave that applied act together, each kind of write in one
 *   statement: the releases' grant messages consumed, the released, finished and cancelled
 *   items deleted, the enqueues' items stored (a replay keeps its place) — after one read of
 *   their runs' keys and stored items. Then each queue the wave touched runs ONE grant pass
 *   (queue_grants.ts) picking up to every free slot, and the passes' writes and grant messages
 *   go together (on Postgres each group is one statement: write_group.ts). A batch of n queued
 *   ops costs a handful of statements, not a dozen per op.
 * - Results: an enqueue whose item holds a slot after the wave says so (`granted`: exact per
 *   op, with no message); a queue's grants to other items (`grants`, `promoted` when one woke
 *   a suspended run) and its rate's stop (`throttled`) go to the result of the wave's LAST op
 *   naming the queue (the engine uses them as totals: committer.ts announceGrants).
 *
 * A batch without queue fields or cancels never comes here: no statement is added to it. A
 * batch with a cancel is a transaction that first reads its runs' queues (one locking read).
 * The grants come after the wave's own writes: a suspend in the same wave as its enqueue
 * reports the `availableAt` it stored, and the grant then wakes the run (deliverMessage rules).
 */
import type {
  OpResult,
  QueueRequest,
  QueueThrottle,
  SlotGrant,
  StoreOp,
} from '@cairn/core/contracts'
import { queueSlotMessage } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import type { Params } from './params.ts'
import { pickGrants, writeGrants, type QueuePick } from './queue_grants.ts'
import {
  consumeNamed,
  deleteItemsOf,
  insertQueues,
  lockOrder,
  lockQueues,
  putItems,
  queuesOfRuns,
  readItems,
  storeQueues,
  type CancelledRun,
  type ItemLookup,
  type ItemsOf,
  type NewItem,
  type QueueRow,
} from './queue_statements.ts'
import { writeTogether } from './write_group.ts'

/** The batch needs this module: a save with `enqueue` or `release`, a finish releasing queues, a cancel. */
export function carriesQueues(op: StoreOp): boolean {
  switch (op.type) {
    case 'saveCheckpoint':
      return op.enqueue !== undefined || op.release !== undefined
    case 'finishRun':
      return op.releaseQueues !== undefined
    case 'cancelRun':
      return true
    default:
      return false
  }
}

/** The queues an op names itself (a cancel's are found in the store). */
function namedQueues(op: StoreOp): string[] {
  if (op.type === 'finishRun') return [...(op.releaseQueues ?? [])]
  if (op.type !== 'saveCheckpoint') return []
  return [op.enqueue?.queue, op.release].filter((name) => name !== undefined)
}

/** The requests of the enqueues whose queue has no row yet, by queue (the first one's). */
function unlockedEnqueues(
  ops: readonly StoreOp[],
  rows: ReadonlyMap<string, QueueRow>,
): Map<string, QueueRequest> {
  const missing = new Map<string, QueueRequest>()
  for (const op of ops) {
    const request = op.type === 'saveCheckpoint' ? op.enqueue : undefined
    if (request !== undefined && !rows.has(request.queue) && !missing.has(request.queue))
      missing.set(request.queue, request)
  }
  return missing
}

/** An item as one string: its queue, its run's key and its position. */
function itemId(queue: string, runKey: number, seq: number): string {
  return JSON.stringify([queue, runKey, seq])
}

/** What a wave's item writes leave to its grant passes and results. */
interface WaveItems {
  /** Each queue the wave's ops touched, with the index (in the wave) of the last op naming it. */
  named: Map<string, number>
  /** The items the wave's enqueues stored or kept (itemId), with their op's index. */
  enqueued: Map<string, number>
  /** Ops whose enqueue found its item holding a slot already (a replayed save). */
  heldBefore: Set<number>
}

/** The news an op's result gets from the wave's passes. */
interface OpNews {
  granted: boolean
  grants: SlotGrant[]
  woke: boolean
  throttled: QueueThrottle[]
}

export class QueuePass {
  /** Each locked queue's row, kept in step as the batch changes it. */
  readonly #rows = new Map<string, QueueRow>()
  /** Each locked queue's row as stored (written back when the batch changed it). */
  readonly #stored = new Map<string, QueueRow>()
  /** The runs the batch cancels that have items, found before the waves. */
  #cancelled = new Map<string, CancelledRun>()
  #woke = false

  /** Grants woke waiting runs (claimable at the batch time). */
  get wokeAny(): boolean {
    return this.#woke
  }

  /** The first pass: lock every queue the batch touches. */
  static async lock(
    ctx: SqlContext,
    session: SqlSession,
    ops: readonly StoreOp[],
  ): Promise<QueuePass> {
    const pass = new QueuePass()
    const cancels = ops.flatMap((op) => (op.type === 'cancelRun' ? [op.runId] : []))
    if (cancels.length > 0) pass.#cancelled = await queuesOfRuns(ctx, session, cancels)
    const names = [
      ...ops.flatMap(namedQueues),
      ...[...pass.#cancelled.values()].flatMap((run) => run.queues),
    ]
    pass.#keep(await lockQueues(ctx, session, names))
    const missing = unlockedEnqueues(ops, pass.#rows)
    if (missing.size === 0) return pass
    await insertQueues(ctx, session, missing)
    // A row added for an enqueue that does not apply stays: an empty queue, harmless (deleting
    // it again could delete the row a concurrent batch's insert made and its items rely on).
    pass.#keep(await lockQueues(ctx, session, [...missing.keys()]))
    return pass
  }

  #keep(rows: ReadonlyMap<string, QueueRow>): void {
    for (const [name, row] of rows) {
      this.#rows.set(name, row)
      this.#stored.set(name, { ...row })
    }
  }

  /**
   * The second pass, for one wave's ops and their results. The applied ops' item writes go
   * first, each kind in one statement: the releases' grant messages consumed, the released,
   * finished and cancelled items deleted, the enqueues' items stored. Then each queue the wave
   * touched runs ONE grant pass (queue_grants.ts), their grants written and delivered
   * together. An enqueue holding a slot says so (`granted`); a queue's grants to others
   * (`grants`; `promoted` when one woke a suspended run) and its rate's stop (`throttled`) go
   * to the result of the wave's last op naming the queue.
   */
  async afterWave(
    ctx: SqlContext,
    session: SqlSession,
    ops: readonly StoreOp[],
    results: OpResult[],
    now: number,
  ): Promise<void> {
    const acting = ops.flatMap((op, i) =>
      results[i]?.status === 'applied' && carriesQueues(op) ? [i] : [],
    )
    if (acting.length === 0) return
    const wave = await this.#writeItems(ctx, session, ops, results, acting, now)
    const names = lockOrder(wave.named.keys())
    const picks: QueuePick[] = []
    for (const name of names) picks.push(await pickGrants(ctx, session, this.#row(name), now))
    const told = (queue: string, w: { runKey: number; seq: number }) =>
      wave.enqueued.has(itemId(queue, w.runKey, w.seq))
    const outcomes = await writeGrants(ctx, session, picks, now, told, [
      (p) => this.#storeChanged(ctx, p),
    ])

    const news = new Map<number, OpNews>()
    const of = (i: number): OpNews => {
      const found = news.get(i)
      if (found !== undefined) return found
      const made: OpNews = { granted: false, grants: [], woke: false, throttled: [] }
      news.set(i, made)
      return made
    }
    for (const i of wave.heldBefore) of(i).granted = true
    for (const { queue, picked } of picks)
      for (const w of picked) {
        const i = wave.enqueued.get(itemId(queue, w.runKey, w.seq))
        if (i !== undefined) of(i).granted = true
      }
    names.forEach((name, k) => {
      const outcome = outcomes[k]
      const i = wave.named.get(name)
      if (outcome === undefined || i === undefined) return
      if (outcome.grants.length === 0 && !outcome.woke && outcome.throttled.length === 0) return
      const op = of(i)
      op.grants.push(...outcome.grants)
      op.throttled.push(...outcome.throttled)
      op.woke ||= outcome.woke
      if (outcome.woke) this.#woke = true
    })
    for (const [i, op] of news) {
      const result = results[i]
      if (result?.status !== 'applied') continue
      results[i] = {
        ...result,
        ...(op.granted ? { granted: true } : {}),
        ...(op.grants.length === 0 ? {} : { grants: op.grants }),
        ...(op.woke ? { promoted: true } : {}),
        ...(op.throttled.length === 0 ? {} : { throttled: op.throttled }),
      }
    }
  }

  /**
   * The item writes of the wave's applied ops (`acting`, in batch order): at most one read
   * (the runs' keys and the enqueues' items), one UPDATE consuming the releases' grant
   * messages, one DELETE and one upsert. Per run the wave holds saves of distinct positions,
   * then at most one finish or cancel (wave_plan.ts): a release comes before the same save's
   * enqueue, and an enqueue of a run the wave ends stores nothing.
   */
  async #writeItems(
    ctx: SqlContext,
    session: SqlSession,
    ops: readonly StoreOp[],
    results: readonly OpResult[],
    acting: readonly number[],
    now: number,
  ): Promise<WaveItems> {
    const ended = new Set<string>()
    ops.forEach((op, i) => {
      if (results[i]?.status !== 'applied') return
      if (op.type === 'cancelRun') ended.add(op.runId)
      else if (op.type === 'finishRun') ended.add(op.fence.runId)
    })
    // The lookups: a run key for each op writing items by it (a cancel's was found by the lock).
    const lookups: ItemLookup[] = []
    const lookupOf = new Map<number, number>()
    for (const i of acting) {
      const op = ops[i] as StoreOp
      let lookup: ItemLookup | null = null
      if (op.type === 'finishRun') {
        if ((op.releaseQueues ?? []).some((name) => this.#rows.has(name)))
          lookup = { runId: op.fence.runId, queue: '', seq: 0 }
      } else if (op.type === 'saveCheckpoint') {
        const { runId, seq } = op.checkpoint
        lookup = { runId, queue: op.enqueue?.queue ?? '', seq: op.enqueue === undefined ? 0 : seq }
      }
      if (lookup === null) continue
      lookupOf.set(i, lookups.length)
      lookups.push(lookup)
    }
    const found = lookups.length === 0 ? [] : await readItems(ctx, session, lookups)
    const keyOf = (i: number, runId: string) => {
      const item = found[lookupOf.get(i) ?? -1]
      if (item === undefined) throw new Error(`queues: run ${runId} of an applied op is gone`)
      return item
    }

    const wave: WaveItems = { named: new Map(), enqueued: new Map(), heldBefore: new Set() }
    const consumed: { runKey: number; name: string }[] = []
    const deleted: ItemsOf[] = []
    const stored: NewItem[] = []
    for (const i of acting) {
      const op = ops[i] as StoreOp
      if (op.type === 'finishRun') {
        const names = (op.releaseQueues ?? []).filter((name) => this.#rows.has(name))
        if (names.length === 0) continue
        const { runKey } = keyOf(i, op.fence.runId)
        for (const name of names) {
          deleted.push({ runKey, queue: name, seq: null })
          wave.named.set(name, i)
        }
      } else if (op.type === 'cancelRun') {
        const run = this.#cancelled.get(op.runId)
        if (run === undefined) continue
        deleted.push({ runKey: run.key, queue: null, seq: null })
        for (const name of run.queues) wave.named.set(name, i)
      } else if (op.type === 'saveCheckpoint') {
        const { runId, seq } = op.checkpoint
        const item = keyOf(i, runId)
        const { runKey } = item
        const request = op.enqueue
        if (op.release !== undefined) {
          consumed.push({ runKey, name: queueSlotMessage(seq) })
          // No such queue: no item, nobody to grant. The same queue asked again by a run the
          // wave does not end: the enqueue's upsert replaces the item.
          const replaced = op.release === request?.queue && !ended.has(runId)
          if (this.#rows.has(op.release) && !replaced)
            deleted.push({ runKey, queue: op.release, seq })
          if (this.#rows.has(op.release)) wave.named.set(op.release, i)
        }
        if (request === undefined) continue
        const row = this.#row(request.queue)
        row.concurrency = request.concurrency // the newest writer's, as its rate
        row.rateLimit = request.rateLimit
        wave.named.set(request.queue, i)
        if (ended.has(runId)) continue // its finish or cancel would delete the item
        // An item there for this attempt keeps its place (a replayed save), unless this save's
        // release deleted it.
        const kept = op.release !== request.queue && item.attempt === request.attempt
        if (!kept) stored.push({ runKey, seq, request, order: row.nextOrder++ })
        else if (item.granted) wave.heldBefore.add(i)
        wave.enqueued.set(itemId(request.queue, runKey, seq), i)
      }
    }
    // Independent writes (write_group.ts): a save releasing and asking again at one position
    // of one queue is stored by the upsert alone, and an ended run's items are only deleted.
    await writeTogether(ctx, session, [
      (p) => consumeNamed(ctx, p, consumed, now),
      (p) => deleteItemsOf(ctx, p, deleted),
      (p) => putItems(ctx, p, stored, now),
    ])
    return wave
  }

  /** The write of the rows the batch changed (one UPDATE), kept as stored. */
  #storeChanged(ctx: SqlContext, p: Params): string | null {
    const changed = [...this.#rows.values()].filter((row) => {
      const stored = this.#stored.get(row.name)
      return (
        stored === undefined ||
        stored.concurrency !== row.concurrency ||
        stored.nextOrder !== row.nextOrder ||
        stored.grants !== row.grants ||
        stored.rateLimit?.limit !== row.rateLimit?.limit ||
        stored.rateLimit?.periodMs !== row.rateLimit?.periodMs
      )
    })
    for (const row of changed) this.#stored.set(row.name, { ...row })
    return storeQueues(ctx, p, changed)
  }

  #row(name: string): QueueRow {
    const row = this.#rows.get(name)
    // Every queue the batch names was locked (an enqueue's row inserted) before the first wave.
    if (row === undefined) throw new Error(`queues: queue ${JSON.stringify(name)} was not locked`)
    return row
  }
}
