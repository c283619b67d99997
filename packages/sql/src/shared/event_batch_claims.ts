/**
 * claimEventBatches on Postgres and MySQL: the request checked as every store checks it, then
 * the dialect's claim (EventBatchClaimWriter: Postgres claims in one statement,
 * postgres/event_batch_claims.ts; MySQL locks, then leases, locked_batch_claims.ts), and the
 * pieces both use: reading the claimed accumulators' payloads and the next claim time.
 */
import type {
  ClaimEventBatchesRequest,
  ClaimedEventBatch,
  ClaimedEventBatches,
} from '@cairn/core/contracts'
import { checkClaimEventBatches } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger, toSafeIntegerOrNull } from './integers.ts'
import { Params } from './params.ts'

export interface EventBatchClaimWriter {
  /**
   * Leases up to `limit` due accumulators of the request's workflows (`due_at <= now`,
   * unleased or leased until no later than `now`), oldest due first (then by id), skipping
   * rows another transaction holds, and closes them to adds (`is_open` NULL); returns them
   * with their payloads in that order, and the earliest time an accumulator of those
   * workflows can be claimed after it (ClaimedEventBatches.nextAt).
   */
  claim(ctx: SqlContext, request: ClaimEventBatchesRequest): Promise<ClaimedEventBatches>
}

export function claimEventBatches(
  ctx: SqlContext,
  writer: EventBatchClaimWriter,
  request: ClaimEventBatchesRequest,
): Promise<ClaimedEventBatches> {
  return writer.claim(ctx, checkClaimEventBatches(request))
}

/**
 * Fills in the payloads of `claimed` (one read, in item order), leaving out any that has
 * none: an accumulator holds at least one payload from its first add, so it was deleted since
 * it was claimed (its run exists; possible only where the read follows the claim's commit).
 */
export async function withPayloads(
  ctx: SqlContext,
  session: SqlSession,
  claimed: readonly ClaimedEventBatch[],
): Promise<ClaimedEventBatch[]> {
  if (claimed.length === 0) return []
  const p = new Params(ctx.dialect)
  const columns = [
    ['n', 'bigint'],
    ['workflow', 'text'],
    ['batch_key', 'text'],
    ['id', 'text'],
  ] as const
  const rows = claimed.map((c, n) => [n, c.workflow, c.key, c.id])
  const source = ctx.dialect.rowSource(p, 'v', columns, rows)
  const text = `SELECT v.n, i.event_id, i.payload FROM ${source}
    JOIN ${ctx.tables.eventBatchItems} i
      ON i.workflow = v.workflow AND i.batch_key = v.batch_key AND i.batch_id = v.id
    ORDER BY v.n, i.item_no`
  for (const [n, eventId, payload] of (await session.query(p.statement(text))).rows) {
    const batch = claimed[toSafeInteger(n, 'n')] as ClaimedEventBatch
    batch.eventIds.push(eventId as string)
    batch.payloads.push(payload as string)
  }
  return claimed.filter((c) => c.payloads.length > 0)
}

/**
 * When an accumulator of `workflows` can next be claimed: the earliest due time of the
 * unleased ones (the head of the due index, past the few leased ones) and the earliest of due
 * time and lease end of the leased ones (through their partial index); null when there are none.
 */
export async function nextClaimAt(
  ctx: SqlContext,
  session: SqlSession,
  workflows: readonly string[],
): Promise<number | null> {
  const batches = ctx.tables.eventBatches
  const p = new Params(ctx.dialect)
  const index = (name: string) => ctx.dialect.useIndex(name)
  // The indexes forced on MySQL: MariaDB would read every accumulator of the workflows by
  // their primary key, and sort them.
  const text = `SELECT
    (SELECT due_at FROM ${batches} ${index('cairn_event_batches_due')}
      WHERE lease_until IS NULL AND ${ctx.dialect.inList(p, 'workflow', workflows, 'text')}
      ORDER BY due_at LIMIT 1),
    (SELECT MIN(CASE WHEN due_at > lease_until THEN due_at ELSE lease_until END)
      FROM ${batches} ${index('cairn_event_batches_leased')}
      WHERE lease_until IS NOT NULL AND ${ctx.dialect.inList(p, 'workflow', workflows, 'text')})`
  const [row] = (await session.query(p.statement(text))).rows
  return earliest([
    toSafeIntegerOrNull(row?.[0] ?? null, 'due_at'),
    toSafeIntegerOrNull(row?.[1] ?? null, 'lease_until'),
  ])
}

/** The least of `times` that are not null; null when all are. */
export function earliest(times: ReadonlyArray<number | null>): number | null {
  let least: number | null = null
  for (const at of times) if (at !== null && (least === null || at < least)) least = at
  return least
}
