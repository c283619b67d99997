/**
 * claimEventBatches in ONE autocommitted statement, then (when it took any) one read of the
 * payloads:
 * - `c` walks the due index (`due_at`, `id`, `workflow`) from its head for accumulators of the
 *   claimer's workflows that are due and not under a live lease, locking them FOR UPDATE SKIP
 *   LOCKED (rows an append or another claim holds are passed over, not waited for); the LIMIT
 *   stops the walk, so no row past it is locked;
 * - `u` leases and closes them, returning them as stored;
 * - the next claim time (of those workflows) comes from the same snapshot, leaving out `c`'s
 *   rows (as read before the lease): the earliest unleased due time, the earliest lease end
 *   (or later due time) of the leased ones, and this claim's own lease end when it took any.
 * The payloads are read after the commit, not in the statement: its snapshot predates the
 * locks it waited for, so it could miss an add committed in between. Once committed, the
 * claim has closed the accumulators: nothing adds to them any more.
 * One row per claimed accumulator, in claim order (or one of NULLs), each with both times.
 */
import type { ClaimEventBatchesRequest, ClaimedEventBatches } from '@cairn/core/contracts'
import type { SqlContext } from '../shared/context.ts'
import { earliest, withPayloads, type EventBatchClaimWriter } from '../shared/event_batch_claims.ts'
import { toClaimed } from '../shared/event_batch_rows.ts'
import { toSafeIntegerOrNull } from '../shared/integers.ts'
import { Params } from '../shared/params.ts'

export const postgresBatchClaims: EventBatchClaimWriter = {
  async claim(ctx: SqlContext, request: ClaimEventBatchesRequest): Promise<ClaimedEventBatches> {
    const { rows } = await ctx.pool.query(claimStatement(ctx, request))
    const taken = rows.filter((row) => row[2] !== null).map((row) => toClaimed(row, 2))
    const nextAt = earliest([
      toSafeIntegerOrNull(rows[0]?.[0] ?? null, 'due_at'),
      toSafeIntegerOrNull(rows[0]?.[1] ?? null, 'lease_until'),
      taken.length > 0 ? request.now + request.leaseMs : null,
    ])
    return { claimed: await withPayloads(ctx, ctx.pool, taken), nextAt }
  },
}

function claimStatement(ctx: SqlContext, request: ClaimEventBatchesRequest) {
  const batches = ctx.tables.eventBatches
  const p = new Params(ctx.dialect)
  const now = p.add(request.now, 'bigint')
  const workflows = p.add(request.workflows, 'text[]')
  const notTaken = `NOT EXISTS (SELECT 1 FROM c
    WHERE c.workflow = x.workflow AND c.batch_key = x.batch_key AND c.id = x.id)`
  const text = `WITH c AS MATERIALIZED (
    SELECT workflow, batch_key, id FROM ${batches}
    WHERE due_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
      AND workflow = ANY(${workflows})
    ORDER BY due_at, id LIMIT ${p.add(request.limit)} FOR UPDATE SKIP LOCKED
  ), u AS (
    UPDATE ${batches} b SET lease_owner = ${p.add(request.owner)},
      lease_until = ${p.add(request.now + request.leaseMs, 'bigint')}, is_open = NULL
    FROM c WHERE b.workflow = c.workflow AND b.batch_key = c.batch_key AND b.id = c.id
    RETURNING b.workflow, b.batch_key, b.id, b.mode, b.first_at, b.due_at
  )
  SELECT
    (SELECT x.due_at FROM ${batches} x
      WHERE x.lease_until IS NULL AND x.workflow = ANY(${workflows}) AND ${notTaken}
      ORDER BY x.due_at LIMIT 1),
    (SELECT MIN(GREATEST(x.due_at, x.lease_until)) FROM ${batches} x
      WHERE x.lease_until IS NOT NULL AND x.workflow = ANY(${workflows}) AND ${notTaken}),
    u.workflow, u.batch_key, u.id, u.mode, u.first_at, u.due_at
  FROM (VALUES (0)) AS one(n) LEFT JOIN u ON true
  ORDER BY u.due_at, u.id`
  return p.statement(text, true)
}
