/**
 * The portable EventBatchClaimWriter (MySQL, MariaDB; the Postgres store claims in one
 * statement: postgres/event_batch_claims.ts). Most calls find nothing due: one plain read of
 * the next claim time answers them, without a transaction. Otherwise one transaction: a
 * locking read of the due accumulators in claim order through the due index, FOR UPDATE SKIP
 * LOCKED (rows an append or another claim holds are passed over, never waited for; forced
 * through the index so only the rows taken are locked, as locked_claims.ts explains), one
 * UPDATE leasing and closing them by key, one read of their payloads, and the next claim time
 * as this transaction leaves it.
 */
import type {
  ClaimEventBatchesRequest,
  ClaimedEventBatch,
  ClaimedEventBatches,
} from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { nextClaimAt, withPayloads, type EventBatchClaimWriter } from './event_batch_claims.ts'
import { CLAIMED_COLUMNS, toClaimed } from './event_batch_rows.ts'
import { refList } from './event_batch_writes.ts'
import { Params } from './params.ts'

export const lockedBatchClaims: EventBatchClaimWriter = {
  async claim(ctx: SqlContext, request: ClaimEventBatchesRequest): Promise<ClaimedEventBatches> {
    const next = await nextClaimAt(ctx, ctx.pool, request.workflows)
    if (next === null || next > request.now) return { claimed: [], nextAt: next }
    return ctx.pool.transaction(async (session) => {
      const due = await lockDue(ctx, session, request)
      if (due.length > 0) await lease(ctx, session, due, request)
      const claimed = await withPayloads(ctx, session, due)
      return { claimed, nextAt: await nextClaimAt(ctx, session, request.workflows) }
    })
  },
}

async function lockDue(
  ctx: SqlContext,
  session: SqlSession,
  request: ClaimEventBatchesRequest,
): Promise<ClaimedEventBatch[]> {
  const p = new Params(ctx.dialect)
  const text = `SELECT ${CLAIMED_COLUMNS} FROM ${ctx.tables.eventBatches}
    ${ctx.dialect.useIndex('cairn_event_batches_due')}
    WHERE due_at <= ${p.add(request.now)}
      AND (lease_until IS NULL OR lease_until <= ${p.add(request.now)})
      AND ${ctx.dialect.inList(p, 'workflow', request.workflows, 'text')}
    ORDER BY due_at, id LIMIT ${p.add(request.limit)} ${ctx.dialect.lockRowsSkipLocked}`
  const { rows } = await session.query(p.statement(text))
  return rows.map((row) => toClaimed(row))
}

async function lease(
  ctx: SqlContext,
  session: SqlSession,
  due: ReadonlyArray<{ workflow: string; key: string; id: string }>,
  request: ClaimEventBatchesRequest,
): Promise<void> {
  const p = new Params(ctx.dialect)
  // By primary key, forced: on a small table MariaDB scans it instead, and at REPEATABLE READ
  // (a pool handed in keeps the server's default) that locks every row until commit, which
  // racing claims then skip (found by the racing-claims conformance test on a given pool).
  const text = `UPDATE ${ctx.tables.eventBatches} ${ctx.dialect.useIndex('PRIMARY')}
    SET lease_owner = ${p.add(request.owner)}, lease_until = ${p.add(request.now + request.leaseMs)},
      is_open = NULL
    WHERE (workflow, batch_key, id) IN (${refList(p, due)})`
  await session.query(p.statement(text, true))
}
