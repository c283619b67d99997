/**
 * requeueRun on Postgres and MySQL: one transaction that locks the run row, checks it is
 * failed or dead at the epoch the caller read, then moves it to pending and removes the failed
 * checkpoints at the positions given. The row lock orders concurrent requeues: the second
 * waits, then reads `pending` and is refused.
 */
import { checkRequeueRequest } from '@cairn/core/store-kit'
import type { RequeueRequest, RequeueResult, RunStatus } from '@cairn/core/contracts'
import { QUEUE_SLOT_PREFIX } from '@cairn/core/store-kit'
import type { SqlContext, WakeContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger } from './integers.ts'
import { Params } from './params.ts'
import { keyOf, lockKey, reenterKey } from './admission_requeue.ts'
import { settleKeys } from './admission_settle.ts'

/** The statuses a requeue applies to (StateStore.requeueRun), as an SQL list. */
export const REQUEUEABLE = "('failed', 'dead')"

const REQUEUEABLE_STATUSES: ReadonlySet<RunStatus> = new Set(['failed', 'dead'])

export async function requeueRun(
  ctx: WakeContext,
  request: RequeueRequest,
): Promise<RequeueResult> {
  checkRequeueRequest(request) // refused before anything is written
  const key = await keyOf(ctx, request.runId)
  const result = await ctx.pool.transaction(async (session): Promise<RequeueResult> => {
    // The singleton key first, then the run: the order every admission write locks in.
    const held = await lockKey(ctx, session, key)
    const run = await lockRun(ctx, session, request.runId)
    if (run === null) return { status: 'not_found' }
    if (!REQUEUEABLE_STATUSES.has(run.status) || run.epoch !== request.epoch)
      return { status: 'refused', current: { status: run.status, epoch: run.epoch } }
    await markPending(ctx, session, request.runId, request.now)
    const positionsReset = await resetPositions(ctx, session, run.key, request.resetSeqs)
    await dropQueueItems(ctx, session, run.key)
    const queued =
      held !== null && (await reenterKey(ctx, session, request.runId, held, request.now))
    if (ctx.wakeStatement !== undefined) await session.query(ctx.wakeStatement(request.now))
    return {
      status: 'applied',
      epoch: run.epoch + 1,
      positionsReset,
      ...(queued ? { queued: true } : {}),
    }
  })
  // Queued: an end that committed unlocked meanwhile may have missed it (admission_settle.ts).
  if (result.status === 'applied' && result.queued === true && key !== null)
    await settleKeys(ctx, [key], request.now)
  return result
}

interface LockedRun {
  key: unknown
  status: RunStatus
  epoch: number
}

async function lockRun(ctx: SqlContext, session: SqlSession, runId: string) {
  const p = new Params(ctx.dialect)
  // Qualified `r.key`: KEY is a reserved word in MySQL, allowed only after a dot.
  const text = `SELECT r.key, r.status, r.lease_epoch FROM ${ctx.tables.runs} r
    WHERE r.id = ${p.add(runId)} ${ctx.dialect.lockRows}`
  const [row] = (await session.query(p.statement(text))).rows
  if (row === undefined) return null
  const locked: LockedRun = {
    key: row[0],
    status: row[1] as RunStatus,
    epoch: toSafeInteger(row[2], 'lease_epoch'),
  }
  return locked
}

async function markPending(ctx: SqlContext, session: SqlSession, runId: string, now: number) {
  const p = new Params(ctx.dialect)
  const text = `UPDATE ${ctx.tables.runs} SET status = 'pending', error = NULL, finished_at = NULL,
    available_at = ${p.add(now)}, waiting_on = NULL, park_reason = NULL,
    lease_epoch = lease_epoch + 1, recoveries = 0, updated_at = ${p.add(now)}
    WHERE id = ${p.add(runId)}`
  await session.query(p.statement(text, true))
}

/**
 * The failed or dead run's queue items held no slot (its run had ended); left behind by an end that
 * did not name its queues, they would hold one again once it is pending: they go, and so do
 * its unconsumed grant messages (a replay takes a grant message as its slot).
 */
async function dropQueueItems(ctx: SqlContext, session: SqlSession, key: unknown): Promise<void> {
  const p = new Params(ctx.dialect)
  await session.query(
    p.statement(`DELETE FROM ${ctx.tables.queueItems} WHERE run_key = ${p.add(key)}`, true),
  )
  // Consumed ones too: their dedupe ids would swallow the grants the replay asks for again.
  const q = new Params(ctx.dialect)
  const forget = `DELETE FROM ${ctx.tables.messages}
    WHERE run_key = ${q.add(key)} AND name LIKE ${q.add(`${QUEUE_SLOT_PREFIX}%`)}`
  await session.query(q.statement(forget, true))
}

async function resetPositions(
  ctx: SqlContext,
  session: SqlSession,
  key: unknown,
  seqs: readonly number[],
): Promise<number> {
  if (seqs.length === 0) return 0
  const p = new Params(ctx.dialect)
  const text = `DELETE FROM ${ctx.tables.checkpoints} WHERE run_key = ${p.add(key)}
    AND status = 'failed' AND ${ctx.dialect.inList(p, 'seq', seqs, 'int')}`
  return (await session.query(p.statement(text, true))).affected
}
