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
 * - After each wave, the ops that applied act in wave order, each followed by its queues'
 *   grant passes (queue_grants.ts): an enqueue stores its item (a replay keeps its place) and
 *   learns whether this pass granted it; a release deletes its item and consumes its grants;
 *   a finish and a cancel delete their run's items.
 *
 * A batch without queue fields or cancels never comes here: no statement is added to it. A
 * batch with a cancel is a transaction that first reads its runs' queues (one locking read).
 * The grants come after the wave's own writes: a suspend in the same wave as its enqueue
 * reports the `availableAt` it stored, and the grant then wakes the run (deliverMessage rules).
 */
import type { OpResult, QueueRequest, SlotGrant, StoreOp } from '@cairn/core/contracts'
import { queueSlotMessage } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { grantPass, itemId, type GrantOutcome } from './queue_grants.ts'
import {
  consumeNamed,
  deleteRunItems,
  insertQueues,
  lockQueues,
  putItem,
  queuesOfRuns,
  readItem,
  storeQueue,
  type QueueRow,
} from './queue_statements.ts'

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

/** The outcomes of an op's passes as one. */
function merged(outcomes: readonly GrantOutcome[]): GrantOutcome {
  const grants: SlotGrant[] = outcomes.flatMap((o) => o.grants)
  return {
    grants,
    woke: outcomes.some((o) => o.woke),
    own: outcomes.some((o) => o.own),
    throttled: outcomes.flatMap((o) => o.throttled),
  }
}

export class QueuePass {
  /** Each locked queue's row, kept in step as the batch changes it. */
  readonly #rows = new Map<string, QueueRow>()
  /** The queues each cancelled run had items in, found before the waves. */
  #cancelled = new Map<string, string[]>()
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
    const names = [...ops.flatMap(namedQueues), ...[...pass.#cancelled.values()].flat()]
    for (const [name, row] of await lockQueues(ctx, session, names)) pass.#rows.set(name, row)
    const missing = unlockedEnqueues(ops, pass.#rows)
    if (missing.size === 0) return pass
    await insertQueues(ctx, session, missing)
    // A row added for an enqueue that does not apply stays: an empty queue, harmless (deleting
    // it again could delete the row a concurrent batch's insert made and its items rely on).
    for (const [name, row] of await lockQueues(ctx, session, [...missing.keys()]))
      pass.#rows.set(name, row)
    return pass
  }

  /**
   * The second pass, for one wave's ops and their results: an enqueue holding a slot says so
   * (`granted`), an op whose passes granted others lists them (`grants`; `promoted` when one
   * woke a suspended run), one whose passes a rate stopped lists those queues (`throttled`).
   */
  async afterWave(
    ctx: SqlContext,
    session: SqlSession,
    ops: readonly StoreOp[],
    results: OpResult[],
    now: number,
  ): Promise<void> {
    for (const [i, op] of ops.entries()) {
      const result = results[i]
      if (result?.status !== 'applied' || !carriesQueues(op)) continue
      const acted = await this.#act(ctx, session, op, now)
      results[i] = {
        ...result,
        ...(acted.own ? { granted: true } : {}),
        ...(acted.grants.length === 0 ? {} : { grants: acted.grants }),
        ...(acted.woke ? { promoted: true } : {}),
        ...(acted.throttled.length === 0 ? {} : { throttled: acted.throttled }),
      }
    }
  }

  /** What an applied op does to its queues: the grants its passes made (`own`: its enqueue holds a slot). */
  async #act(
    ctx: SqlContext,
    session: SqlSession,
    op: StoreOp,
    now: number,
  ): Promise<GrantOutcome> {
    const outcomes: GrantOutcome[] = []
    if (op.type === 'finishRun') {
      const names = (op.releaseQueues ?? []).filter((name) => this.#rows.has(name))
      if (names.length > 0) await deleteRunItems(ctx, session, op.fence.runId, names)
      for (const name of names) outcomes.push(await this.#grant(ctx, session, name, now))
    } else if (op.type === 'cancelRun') {
      const names = this.#cancelled.get(op.runId) ?? []
      if (names.length > 0) await deleteRunItems(ctx, session, op.runId, null)
      for (const name of names) outcomes.push(await this.#grant(ctx, session, name, now))
    } else if (op.type === 'saveCheckpoint') {
      if (op.release !== undefined)
        outcomes.push(await this.#release(ctx, session, op, op.release, now))
      if (op.enqueue !== undefined)
        outcomes.push(await this.#enqueue(ctx, session, op, op.enqueue, now))
    }
    return merged(outcomes)
  }

  async #release(
    ctx: SqlContext,
    session: SqlSession,
    op: StoreOp & { type: 'saveCheckpoint' },
    name: string,
    now: number,
  ): Promise<GrantOutcome> {
    const { runId, seq } = op.checkpoint
    await consumeNamed(ctx, session, runId, queueSlotMessage(seq), now)
    if (!this.#rows.has(name)) return merged([]) // no such queue: no item, nobody to grant
    await deleteRunItems(ctx, session, runId, [name], seq)
    return this.#grant(ctx, session, name, now)
  }

  /**
   * Stores the item (kept as it is for the same attempt) and grants: `own` when the item holds
   * a slot after it (granted now, with no message, or before).
   */
  async #enqueue(
    ctx: SqlContext,
    session: SqlSession,
    op: StoreOp & { type: 'saveCheckpoint' },
    request: QueueRequest,
    now: number,
  ): Promise<GrantOutcome> {
    const row = this.#row(request.queue)
    row.concurrency = request.concurrency // the newest writer's, as its rate
    row.rateLimit = request.rateLimit
    const { runId, seq } = op.checkpoint
    const found = await readItem(ctx, session, row.name, runId, seq)
    const kept = found.attempt === request.attempt
    if (!kept) {
      const item = { runKey: found.runKey, seq, request, order: row.nextOrder++ }
      await putItem(ctx, session, item, now)
    }
    const own = itemId({ runKey: found.runKey, seq })
    const outcome = await this.#grant(ctx, session, row.name, now, true, own)
    return { ...outcome, own: outcome.own || (kept && found.granted) }
  }

  /**
   * The queue's grant pass; its row written back when it changed (`changed`: by the caller;
   * a grant moves its counter, which numbers the rate's log rows).
   */
  async #grant(
    ctx: SqlContext,
    session: SqlSession,
    name: string,
    now: number,
    changed = false,
    own?: string,
  ): Promise<GrantOutcome> {
    const row = this.#row(name)
    const before = row.grants
    const outcome = await grantPass(ctx, session, row, now, own)
    if (outcome.woke) this.#woke = true
    if (changed || row.grants !== before) await storeQueue(ctx, session, row)
    return outcome
  }

  #row(name: string): QueueRow {
    const row = this.#rows.get(name)
    // Every queue the batch names was locked (an enqueue's row inserted) before the first wave.
    if (row === undefined) throw new Error(`queues: queue ${JSON.stringify(name)} was not locked`)
    return row
  }
}
