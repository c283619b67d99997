/**
 * StateStore.leaseQueueSlots on Postgres and MySQL: one transaction under the queue row's lock
 * — the lock every enqueue, release and grant pass takes (queue_writes.ts, queue_calls.ts) —
 * so no grant pass counts the queue's slots while a lease changes them, and no lease while a
 * pass grants:
 *
 * 1. the queue's row locked (inserted first, as an enqueue's is, if the queue was never
 *    written: its concurrency the request's, no rate);
 * 2. one read: the slots granted items hold and the items waiting (counted as a grant pass
 *    and queueStats count them: queue_line.ts), the owner's unexpired slots, the other
 *    owners' unexpired slots, and how many rows there are to delete (expired leases of the
 *    other owners; the owner's own row);
 * 3. the owner's slots decided by the shared rule (store-kit leasedSlots), then one group of
 *    writes (write_group.ts: one statement on Postgres): the expired leases deleted, the
 *    owner's lease upserted (deleted when it holds nothing), the queue's concurrency set to
 *    the request's (as an enqueue sets it). Writes with nothing to do are not sent.
 *
 * The call grants no waiter: slots it gives back reach them by the queue's next pass.
 */
import type { QueueLease, QueueLeaseRequest } from '@cairn/core/contracts'
import { checkQueueLease, leasedSlots } from '@cairn/core/store-kit'
import type { BatchContext } from './apply_batch.ts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger } from './integers.ts'
import { Params } from './params.ts'
import { itemState } from './queue_line.ts'
import { insertQueues, lockQueues, type QueueRow } from './queue_statements.ts'
import { writeTogether } from './write_group.ts'

export async function leaseQueueSlots(
  ctx: BatchContext,
  request: QueueLeaseRequest,
  now: number,
): Promise<QueueLease> {
  const checked = checkQueueLease(request, now)
  const { queue, owner, concurrency, leaseMs } = checked
  const expiresAt = now + leaseMs
  return ctx.pool.transaction(async (session) => {
    const row = await lockQueue(ctx, session, queue, concurrency)
    const read = await readLeaseCounts(ctx, session, queue, owner, now)
    const held = leasedSlots(checked, { concurrency, ...read.counts })
    const t = ctx.tables
    await writeTogether(ctx, session, [
      (p) =>
        read.expired === 0
          ? null
          : `DELETE FROM ${t.queueLeases} WHERE queue = ${p.add(queue)}
            AND expires_at <= ${p.add(now, 'bigint')} AND owner <> ${p.add(owner)}`,
      (p) => {
        if (held > 0)
          return `INSERT INTO ${t.queueLeases} (queue, owner, slots, expires_at)
            VALUES (${p.add(queue)}, ${p.add(owner)}, ${p.add(held)}, ${p.add(expiresAt, 'bigint')})
            ${ctx.dialect.upsert(['queue', 'owner'], ['slots', 'expires_at'])}`
        if (!read.ownRow) return null
        return `DELETE FROM ${t.queueLeases} WHERE queue = ${p.add(queue)} AND owner = ${p.add(owner)}`
      },
      (p) =>
        row.concurrency === concurrency
          ? null
          : `UPDATE ${t.queues} SET concurrency = ${p.add(concurrency)} WHERE name = ${p.add(queue)}`,
    ])
    return { held, expiresAt, waiting: read.counts.waiting }
  })
}

/** The queue's row, locked; inserted first (with `concurrency`, no rate) if it has none. */
async function lockQueue(
  ctx: SqlContext,
  session: SqlSession,
  queue: string,
  concurrency: number,
): Promise<QueueRow> {
  const found = (await lockQueues(ctx, session, [queue])).get(queue)
  if (found !== undefined) return found
  await insertQueues(ctx, session, new Map([[queue, { concurrency, rateLimit: null }]]))
  const row = (await lockQueues(ctx, session, [queue])).get(queue)
  if (row === undefined) throw new Error(`queues: queue ${JSON.stringify(queue)} has no row`)
  return row
}

/**
 * The counts leasedSlots needs (but the concurrency), read after the lock in one statement
 * of two rows: the items' (part 0) and the leases' (part 1); and what there is to delete:
 * the other owners' expired leases, and whether the owner has a row (expired or not).
 */
async function readLeaseCounts(
  ctx: SqlContext,
  session: SqlSession,
  queue: string,
  owner: string,
  now: number,
): Promise<{
  counts: { granted: number; waiting: number; mine: number; othersLeased: number }
  expired: number
  ownRow: boolean
}> {
  const p = new Params(ctx.dialect)
  const { queueItems, queueLeases } = ctx.tables
  // Bound in text order (`?` is positional). Unexpired: expires_at > now.
  const text = `SELECT 0, COALESCE(SUM(CASE WHEN w.state = 0 THEN 1 ELSE 0 END), 0),
      COALESCE(SUM(CASE WHEN w.state = 3 THEN 1 ELSE 0 END), 0), 0, 0
    FROM (SELECT ${itemState(ctx)} AS state FROM ${queueItems} i
      WHERE i.queue = ${p.add(queue)}) w
    UNION ALL
    SELECT 1,
      COALESCE(SUM(CASE WHEN l.owner = ${p.add(owner)} AND l.expires_at > ${p.add(now, 'bigint')}
        THEN l.slots ELSE 0 END), 0),
      COALESCE(SUM(CASE WHEN l.owner <> ${p.add(owner)} AND l.expires_at > ${p.add(now, 'bigint')}
        THEN l.slots ELSE 0 END), 0),
      COALESCE(SUM(CASE WHEN l.owner <> ${p.add(owner)} AND l.expires_at <= ${p.add(now, 'bigint')}
        THEN 1 ELSE 0 END), 0),
      COALESCE(SUM(CASE WHEN l.owner = ${p.add(owner)} THEN 1 ELSE 0 END), 0)
    FROM ${queueLeases} l WHERE l.queue = ${p.add(queue)}`
  const counts = { granted: 0, waiting: 0, mine: 0, othersLeased: 0 }
  let expired = 0
  let ownRows = 0
  for (const row of (await session.query(p.statement(text))).rows) {
    const [part, a, b, c, d] = row.map((value) => toSafeInteger(value, 'lease count'))
    if (part === 0) {
      counts.granted = a ?? 0
      counts.waiting = b ?? 0
    } else {
      counts.mine = a ?? 0
      counts.othersLeased = b ?? 0
      expired = c ?? 0
      ownRows = d ?? 0
    }
  }
  return { counts, expired, ownRow: ownRows > 0 }
}
