/**
 * What a grant pass (queue_grants.ts) and queueStats read and write of one queue's line.
 * Slots in use are counted from the items and their runs every time, never stored: an item
 * holds a slot while it is granted and its run is not terminal, so whoever ends a run frees
 * its slots. Blocked runs are stored `waiting` (blocked_status.ts): the status lists below
 * cover them. The slots of a queue's unexpired leases (StateStore.leaseQueueSlots:
 * queue_leases.ts) are in use too, whoever holds them.
 */
import type { QueueStats } from '@cairn/core/contracts'
import { queueThrottled, type QueueWaiter } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger, toSafeIntegerOrNull } from './integers.ts'
import { TERMINAL_STATUSES } from './op_columns.ts'
import { Params } from './params.ts'
import { rateOf, runKeys } from './queue_statements.ts'

/** Stored statuses of runs whose items wait for a grant (parked and queued runs are passed over). */
const WAITER_STATUSES = `('pending', 'running', 'waiting')`

/**
 * Each item's state (as `i`) from its run, found by key one item at a time (a join may scan
 * the runs): 1 ended (or gone: no row); 0 holds a slot; 3 waits; 2 neither (a parked run's
 * item: its unpark drops it).
 */
export function itemState(ctx: SqlContext): string {
  return `COALESCE((SELECT CASE WHEN r.status IN ${TERMINAL_STATUSES} THEN 1
      WHEN r.status IN ${WAITER_STATUSES} THEN (CASE WHEN i.granted = 1 THEN 0 ELSE 3 END)
      ELSE 2 END FROM ${ctx.tables.runs} r WHERE r.key = i.run_key), 1)`
}

/**
 * The slots the leases of the queue `queue` (an SQL expression: a placeholder, a column) hold
 * at `now` (a placeholder): those expiring later. A range of the leases' primary key, read
 * whole (0 without a lease).
 */
export function leasedSlotsAt(ctx: SqlContext, queue: string, now: string): string {
  return `(SELECT COALESCE(SUM(l.slots), 0) FROM ${ctx.tables.queueLeases} l
      WHERE l.queue = ${queue} AND l.expires_at > ${now})`
}

/** An item of a queue, by its run's key and its position. */
export interface ItemPlace {
  runKey: number
  seq: number
}

export interface Waiter extends QueueWaiter, ItemPlace {
  runId: string
  attempt: number
  /** The grant number of its fairness key's last grant (0: never granted). */
  lastGrant: number
}

/** `(run_key, seq) IN ((…), …)` over `places`. */
function placeIn(p: Params, places: readonly ItemPlace[]): string {
  const rows = places.map(({ runKey, seq }) => `(${p.add(runKey)}, ${p.add(seq)})`)
  return `(run_key, seq) IN (${rows.join(', ')})`
}

/**
 * A queue's line as a grant pass needs it at `now`, in one read: its slots in use (`held`:
 * granted items of runs pending, running or waiting — blocked runs are stored waiting; parked
 * ones hold nothing), the slots its unexpired leases hold (`leased`), its items whose run
 * ended or is gone (the pass deletes them), and the waiters it may pick into the free slots:
 * the first `concurrency − held − leased` of each (priority, fairness key) in line order —
 * within one, the grant rule takes them in that order — each with its key's last grant.
 * Without waiters (or without a free slot) `held` and `leased` are not read: 0.
 */
export async function readLine(
  ctx: SqlContext,
  session: SqlSession,
  queue: string,
  concurrency: number,
  now: number,
): Promise<{ held: number; leased: number; ended: ItemPlace[]; waiters: Waiter[] }> {
  const p = new Params(ctx.dialect)
  const { runs, queueItems, queueKeys } = ctx.tables
  const state = itemState(ctx)
  // Bound in text order (`?` is positional): the leases' queue and now, the queue, then the
  // concurrency. The leases' sum is uncorrelated: read once. One level of derived table:
  // MariaDB returns the VARBINARY columns of a second one as BLOBs.
  const text = `SELECT w.state, w.run_key, w.seq,
      (SELECT r.id FROM ${runs} r WHERE r.key = w.run_key), w.attempt, w.priority,
      w.fairness_key, w.item_order, w.last_grant, w.held, w.leased
    FROM (SELECT i.run_key, i.seq, i.attempt, i.priority, i.fairness_key, i.item_order,
        COALESCE(k.last_grant, 0) AS last_grant, ${state} AS state,
        ROW_NUMBER() OVER (PARTITION BY ${state}, i.priority, i.fairness_key
          ORDER BY i.item_order) AS n,
        SUM(CASE WHEN ${state} = 0 THEN 1 ELSE 0 END) OVER () AS held,
        ${leasedSlotsAt(ctx, p.add(queue), p.add(now, 'bigint'))} AS leased
      FROM ${queueItems} i
      LEFT JOIN ${queueKeys} k ON k.queue = i.queue AND k.fairness_key = i.fairness_key
      WHERE i.queue = ${p.add(queue)}) w
    WHERE w.state = 1 OR (w.state = 3 AND w.n <= ${p.add(concurrency)} - w.held - w.leased)`
  const line = { held: 0, leased: 0, ended: [] as ItemPlace[], waiters: [] as Waiter[] }
  for (const row of (await session.query(p.statement(text))).rows) {
    const runKey = toSafeInteger(row[1], 'run_key')
    const seq = toSafeInteger(row[2], 'seq')
    if (toSafeInteger(row[0], 'state') === 1) {
      line.ended.push({ runKey, seq })
      continue
    }
    line.held = toSafeInteger(row[9], 'held')
    line.leased = toSafeInteger(row[10], 'leased')
    line.waiters.push({
      runKey,
      runId: row[3] as string,
      seq,
      attempt: toSafeInteger(row[4], 'attempt'),
      priority: toSafeInteger(row[5], 'priority'),
      fairnessKey: row[6] as string,
      order: toSafeInteger(row[7], 'item_order'),
      lastGrant: toSafeInteger(row[8], 'last_grant'),
    })
  }
  return line
}

export async function deleteItems(
  ctx: SqlContext,
  session: SqlSession,
  queue: string,
  places: readonly ItemPlace[],
): Promise<void> {
  const p = new Params(ctx.dialect)
  const text = `DELETE FROM ${ctx.tables.queueItems} WHERE queue = ${p.add(queue)} AND ${placeIn(p, places)}`
  await session.query(p.statement(text, true))
}

/** A waiter a grant pass picked, with its queue. */
export interface PickedItem {
  queue: string
  waiter: Waiter
}

/** Marks the picked items granted (one UPDATE over every queue of the wave). */
export function markGranted(
  ctx: SqlContext,
  p: Params,
  picked: readonly PickedItem[],
): string | null {
  if (picked.length === 0) return null
  const columns = [
    ['queue', 'text'],
    ['run_key', 'bigint'],
    ['seq', 'bigint'],
  ] as const
  const rows = picked.map(({ queue, waiter }) => [queue, waiter.runKey, waiter.seq])
  const source = ctx.dialect.rowSource(p, 'v', columns, rows)
  const keys = runKeys(
    ctx,
    p,
    'i.run_key',
    picked.map(({ waiter }) => waiter),
  )
  const on = `i.queue = v.queue AND i.run_key = v.run_key AND ${keys} AND i.seq = v.seq`
  return ctx.dialect.updateFrom(
    ctx.tables.queueItems,
    'i',
    source,
    on,
    (set) => `${set}granted = 1`,
  )
}

/**
 * Stores each picked fairness key's last grant number: the number of the last pick of the
 * key in its queue (picks are in grant order). One upsert over every queue of the wave.
 */
export function storeLastGrants(
  ctx: SqlContext,
  p: Params,
  picked: readonly PickedItem[],
): string | null {
  if (picked.length === 0) return null
  const last = new Map<string, [string, string, number]>()
  for (const { queue, waiter } of picked)
    last.set(JSON.stringify([queue, waiter.fairnessKey]), [
      queue,
      waiter.fairnessKey,
      waiter.lastGrant,
    ])
  const columns = [
    ['queue', 'text'],
    ['fairness_key', 'text'],
    ['last_grant', 'bigint'],
  ] as const
  const source = ctx.dialect.rowSource(p, 'v', columns, [...last.values()])
  return `INSERT INTO ${ctx.tables.queueKeys} (queue, fairness_key, last_grant)
    SELECT v.queue, v.fairness_key, v.last_grant FROM ${source}
    ${ctx.dialect.upsert(['queue', 'fairness_key'], ['last_grant'])}`
}

/**
 * QueueStats of the queues of `names` that exist, in code point order, their rate and leases
 * counted at `now`: one read (a rate-limited queue's recent grants are counted from its log,
 * the leased slots from the queue's unexpired leases).
 */
export async function readStats(
  ctx: SqlContext,
  session: SqlSession,
  names: readonly string[],
  now: number,
): Promise<QueueStats[]> {
  const p = new Params(ctx.dialect)
  const { queues, queueItems, runs, queueGrantLog } = ctx.tables
  const waits = `i.granted = 0 AND r.status IN ${WAITER_STATUSES}`
  // Bound first: it comes first in the text (`?` is positional).
  const recent = `CASE WHEN q.rate_limit IS NULL THEN 0 ELSE (SELECT COUNT(*) FROM ${queueGrantLog} g
      WHERE g.queue = q.name AND g.granted_at > ${p.add(now, 'bigint')} - q.rate_period_ms) END`
  // Bound second: it comes after `recent`, before the names.
  const leased = leasedSlotsAt(ctx, 'q.name', p.add(now, 'bigint'))
  const text = `SELECT q.name, q.concurrency,
      SUM(CASE WHEN i.granted = 1 AND r.status IN ${WAITER_STATUSES} THEN 1 ELSE 0 END),
      SUM(CASE WHEN ${waits} THEN 1 ELSE 0 END),
      MIN(CASE WHEN ${waits} THEN i.enqueued_at END),
      q.rate_limit, q.rate_period_ms, ${recent}, ${leased}
    FROM ${queues} q LEFT JOIN ${queueItems} i ON i.queue = q.name
    LEFT JOIN ${runs} r ON r.key = i.run_key
    WHERE ${ctx.dialect.inList(p, 'q.name', [...new Set(names)], 'text')}
    GROUP BY q.name, q.concurrency, q.rate_limit, q.rate_period_ms
    ORDER BY ${ctx.dialect.byCodePoint('q.name')}`
  return (await session.query(p.statement(text))).rows.map((row) => {
    const counts = {
      concurrency: toSafeInteger(row[1], 'concurrency'),
      granted: toSafeInteger(row[2], 'granted'),
      waiting: toSafeInteger(row[3], 'waiting'),
      rateLimit: rateOf(row[5], row[6]),
      recentGrants: toSafeInteger(row[7], 'recent_grants'),
      leased: toSafeInteger(row[8], 'leased'),
    }
    return {
      queue: row[0] as string,
      ...counts,
      oldestWaitingSince: toSafeIntegerOrNull(row[4], 'oldest'),
      throttled: queueThrottled(counts),
    }
  })
}
