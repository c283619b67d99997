/**
 * What a grant pass (queue_grants.ts) and queueStats read and write of one queue's line.
 * Slots in use are counted from the items and their runs every time, never stored: an item
 * holds a slot while it is granted and its run is not terminal, so whoever ends a run frees
 * its slots. Blocked runs are stored `waiting` (blocked_status.ts): the status lists below
 * cover them.
 */
import type { QueueStats } from '@cairn/core/contracts'
import { queueThrottled, type QueueWaiter } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger, toSafeIntegerOrNull } from './integers.ts'
import { TERMINAL_STATUSES } from './op_columns.ts'
import { Params } from './params.ts'
import { rateOf } from './queue_statements.ts'

/** Stored statuses of runs whose items wait for a grant (parked and queued runs are passed over). */
const WAITER_STATUSES = `('pending', 'running', 'waiting')`

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
 * The queue's slots in use (granted items of runs pending, running or waiting — blocked runs
 * are stored waiting; parked ones hold nothing), and its items whose run ended or is gone (the
 * pass deletes them). One read of the granted and the ended items.
 */
export async function readLine(
  ctx: SqlContext,
  session: SqlSession,
  queue: string,
): Promise<{ held: number; ended: ItemPlace[] }> {
  const p = new Params(ctx.dialect)
  const ended = `(r.key IS NULL OR r.status IN ${TERMINAL_STATUSES})`
  // A parked run's granted item holds nothing (its unpark drops it: the run asks again).
  const holds = `r.status IN ${WAITER_STATUSES}`
  const text = `SELECT i.run_key, i.seq, CASE WHEN ${ended} THEN 1 WHEN ${holds} THEN 0 ELSE 2 END
    FROM ${ctx.tables.queueItems} i LEFT JOIN ${ctx.tables.runs} r ON r.key = i.run_key
    WHERE i.queue = ${p.add(queue)} AND (i.granted = 1 OR ${ended})`
  const line = { held: 0, ended: [] as ItemPlace[] }
  for (const [runKey, seq, over] of (await session.query(p.statement(text))).rows) {
    const state = toSafeInteger(over, 'ended')
    if (state === 0) line.held += 1
    else if (state === 1)
      line.ended.push({ runKey: toSafeInteger(runKey, 'run_key'), seq: toSafeInteger(seq, 'seq') })
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

/**
 * The waiters a pass granting at most `free` slots may pick: the first `free` of each (priority,
 * fairness key) in line order — within one, the grant rule takes them in that order — each
 * with its key's last grant.
 */
export async function loadWaiters(
  ctx: SqlContext,
  session: SqlSession,
  queue: string,
  free: number,
): Promise<Waiter[]> {
  const p = new Params(ctx.dialect)
  const { runs, queueItems, queueKeys } = ctx.tables
  const text = `SELECT w.run_key, w.id, w.seq, w.attempt, w.priority, w.fairness_key,
      w.item_order, w.last_grant
    FROM (SELECT i.run_key, r.id, i.seq, i.attempt, i.priority, i.fairness_key, i.item_order,
        COALESCE(k.last_grant, 0) AS last_grant,
        ROW_NUMBER() OVER (PARTITION BY i.priority, i.fairness_key ORDER BY i.item_order) AS n
      FROM ${queueItems} i JOIN ${runs} r ON r.key = i.run_key
      LEFT JOIN ${queueKeys} k ON k.queue = i.queue AND k.fairness_key = i.fairness_key
      WHERE i.queue = ${p.add(queue)} AND i.granted = 0 AND r.status IN ${WAITER_STATUSES}) w
    WHERE w.n <= ${p.add(free)}`
  return (await session.query(p.statement(text))).rows.map((row) => ({
    runKey: toSafeInteger(row[0], 'run_key'),
    runId: row[1] as string,
    seq: toSafeInteger(row[2], 'seq'),
    attempt: toSafeInteger(row[3], 'attempt'),
    priority: toSafeInteger(row[4], 'priority'),
    fairnessKey: row[5] as string,
    order: toSafeInteger(row[6], 'item_order'),
    lastGrant: toSafeInteger(row[7], 'last_grant'),
  }))
}

export async function markGranted(
  ctx: SqlContext,
  session: SqlSession,
  queue: string,
  places: readonly ItemPlace[],
): Promise<void> {
  const p = new Params(ctx.dialect)
  const text = `UPDATE ${ctx.tables.queueItems} SET granted = 1
    WHERE queue = ${p.add(queue)} AND ${placeIn(p, places)}`
  await session.query(p.statement(text, true))
}

/** Stores each fairness key's last grant number (`lastGrants`: key → number). */
export async function storeLastGrants(
  ctx: SqlContext,
  session: SqlSession,
  queue: string,
  lastGrants: ReadonlyMap<string, number>,
): Promise<void> {
  const p = new Params(ctx.dialect)
  const rows = [...lastGrants].map(
    ([key, grant]) => `(${p.add(queue)}, ${p.add(key)}, ${p.add(grant)})`,
  )
  const text = `INSERT INTO ${ctx.tables.queueKeys} (queue, fairness_key, last_grant)
    VALUES ${rows.join(', ')} ${ctx.dialect.upsert(['queue', 'fairness_key'], ['last_grant'])}`
  await session.query(p.statement(text, true))
}

/**
 * QueueStats of the queues of `names` that exist, in code point order, their rate counted at
 * `now`: one read (a rate-limited queue's recent grants are counted from its log).
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
  const text = `SELECT q.name, q.concurrency,
      SUM(CASE WHEN i.granted = 1 AND r.status IN ${WAITER_STATUSES} THEN 1 ELSE 0 END),
      SUM(CASE WHEN ${waits} THEN 1 ELSE 0 END),
      MIN(CASE WHEN ${waits} THEN i.enqueued_at END),
      q.rate_limit, q.rate_period_ms, ${recent}
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
    }
    return {
      queue: row[0] as string,
      ...counts,
      oldestWaitingSince: toSafeIntegerOrNull(row[4], 'oldest'),
      throttled: queueThrottled(counts),
    }
  })
}
