/**
 * The statements on queue rows and queue items (named queues: queue_writes.ts): the queue
 * rows' locks and counters, and the items a save, a finish or a cancel puts in or takes out.
 * What a grant pass reads and writes is in queue_line.ts. Placeholders are bound in text
 * order (MySQL's are positional).
 */
import type { QueueRateLimit, QueueRequest } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger, toSafeIntegerOrNull } from './integers.ts'
import { Params } from './params.ts'

/** A queue row as read FOR UPDATE, kept in step while the transaction changes it. */
export interface QueueRow {
  name: string
  concurrency: number
  /** The newest writer's rate (null: none), as `rate_limit` and `rate_period_ms`. */
  rateLimit: QueueRateLimit | null
  /** The next item's place in line. */
  nextOrder: number
  /** Grants made so far: the number of the last one. */
  grants: number
}

/**
 * Names in the order every writer locks them: by code point, the order of their UTF-8 bytes,
 * which is how the lock statement sorts them (Postgres `COLLATE "C"`, MySQL's VARBINARY), so
 * two transactions never take two queues in opposite orders.
 */
export function lockOrder(names: Iterable<string>): string[] {
  const bytes = (name: string) => Buffer.from(name, 'utf8')
  return [...new Set(names)].sort((a, b) => Buffer.compare(bytes(a), bytes(b)))
}

/** `SELECT run key FROM runs WHERE id = ?`: an item's run, for statements naming it by id. */
function runKeyOf(ctx: SqlContext, p: Params, runId: string): string {
  return `(SELECT r.key FROM ${ctx.tables.runs} r WHERE r.id = ${p.add(runId)})`
}

/** Locks the rows of `names` in lock order; what each holds (a queue without a row is absent). */
export async function lockQueues(
  ctx: SqlContext,
  session: SqlSession,
  names: readonly string[],
): Promise<Map<string, QueueRow>> {
  const found = new Map<string, QueueRow>()
  if (names.length === 0) return found
  const p = new Params(ctx.dialect)
  const text = `SELECT name, concurrency, next_order, grants, rate_limit, rate_period_ms
    FROM ${ctx.tables.queues} WHERE ${ctx.dialect.inList(p, 'name', lockOrder(names), 'text')}
    ORDER BY ${ctx.dialect.byCodePoint('name')} ${ctx.dialect.lockRows}`
  for (const [name, concurrency, nextOrder, grants, limit, periodMs] of (
    await session.query(p.statement(text))
  ).rows)
    found.set(name as string, {
      name: name as string,
      concurrency: toSafeInteger(concurrency, 'concurrency'),
      rateLimit: rateOf(limit, periodMs),
      nextOrder: toSafeInteger(nextOrder, 'next_order'),
      grants: toSafeInteger(grants, 'grants'),
    })
  return found
}

/** A queue's rate from its `rate_limit` and `rate_period_ms` columns (NULL: no rate). */
export function rateOf(limit: unknown, periodMs: unknown): QueueRateLimit | null {
  const l = toSafeIntegerOrNull(limit, 'rate_limit')
  const period = toSafeIntegerOrNull(periodMs, 'rate_period_ms')
  return l === null || period === null ? null : { limit: l, periodMs: period }
}

/** Inserts rows for queues that have none (in lock order); a row another writer just added stays. */
export async function insertQueues(
  ctx: SqlContext,
  session: SqlSession,
  requests: ReadonlyMap<string, QueueRequest>,
): Promise<void> {
  const p = new Params(ctx.dialect)
  const rows = lockOrder(requests.keys()).map((name) => {
    const request = requests.get(name)
    const rate = request?.rateLimit ?? null
    return `(${p.add(name)}, ${p.add(request?.concurrency)}, ${p.add(rate?.limit ?? null)},
      ${p.add(rate?.periodMs ?? null)}, 1, 0)`
  })
  const text = `INSERT INTO ${ctx.tables.queues}
    (name, concurrency, rate_limit, rate_period_ms, next_order, grants) VALUES ${rows.join(', ')} ${ctx.dialect.ignoreDuplicate('name')}`
  await session.query(p.statement(text, true))
}

/** Writes a locked queue row back: its concurrency, its rate and both counters. */
export async function storeQueue(
  ctx: SqlContext,
  session: SqlSession,
  row: QueueRow,
): Promise<void> {
  const p = new Params(ctx.dialect)
  const text = `UPDATE ${ctx.tables.queues} SET concurrency = ${p.add(row.concurrency)},
    rate_limit = ${p.add(row.rateLimit?.limit ?? null)},
    rate_period_ms = ${p.add(row.rateLimit?.periodMs ?? null)}, next_order = ${p.add(row.nextOrder)}, grants = ${p.add(row.grants)}
    WHERE name = ${p.add(row.name)}`
  await session.query(p.statement(text, true))
}

/**
 * The queues each of `runIds` has items in (a cancel releases them all). A locking read, like
 * every read before the queue locks: on a MySQL connection at REPEATABLE READ a plain read
 * would fix the transaction's snapshot before the queue locks are held, and the grant passes
 * would count slots from that older snapshot. The runs are locked in key order, as the wave
 * locks them.
 */
export async function queuesOfRuns(
  ctx: SqlContext,
  session: SqlSession,
  runIds: readonly string[],
): Promise<Map<string, string[]>> {
  const p = new Params(ctx.dialect)
  const text = `SELECT r.id, i.queue FROM ${ctx.tables.runs} r
    JOIN ${ctx.tables.queueItems} i ON i.run_key = r.key
    WHERE ${ctx.dialect.inList(p, 'r.id', runIds, 'text')} ORDER BY r.key ${ctx.dialect.lockRows}`
  const found = new Map<string, Set<string>>()
  for (const [runId, queue] of (await session.query(p.statement(text))).rows)
    found.set(runId as string, (found.get(runId as string) ?? new Set()).add(queue as string))
  return new Map([...found].map(([runId, queues]) => [runId, [...queues]]))
}

/** A position's item as an enqueue finds it: the run's key, and the attempt stored (null: none). */
export interface FoundItem {
  runKey: number
  attempt: number | null
  /** The item there holds a slot (meaningful with its `attempt`). */
  granted: boolean
}

/** The item (runId, seq) of `queue`, read with its run's key (the run exists: its save applied). */
export async function readItem(
  ctx: SqlContext,
  session: SqlSession,
  queue: string,
  runId: string,
  seq: number,
): Promise<FoundItem> {
  const p = new Params(ctx.dialect)
  const text = `SELECT r.key, i.attempt, i.granted FROM ${ctx.tables.runs} r
    LEFT JOIN ${ctx.tables.queueItems} i
      ON i.run_key = r.key AND i.queue = ${p.add(queue)} AND i.seq = ${p.add(seq)}
    WHERE r.id = ${p.add(runId)}`
  const [row] = (await session.query(p.statement(text))).rows
  if (row === undefined) throw new Error(`queues: run ${runId} of an applied save is gone`)
  return {
    runKey: toSafeInteger(row[0], 'key'),
    attempt: row[1] === null ? null : toSafeInteger(row[1], 'attempt'),
    granted: row[2] !== null && Number(row[2]) === 1,
  }
}

/** Stores the item at the back of the line (`order`), not granted, replacing one of another attempt. */
export async function putItem(
  ctx: SqlContext,
  session: SqlSession,
  item: { runKey: number; seq: number; request: QueueRequest; order: number },
  now: number,
): Promise<void> {
  const { runKey, seq, request, order } = item
  const p = new Params(ctx.dialect)
  const values = [
    request.queue,
    runKey,
    seq,
    request.attempt,
    request.priority,
    request.fairnessKey,
    order,
    now,
    0,
  ].map((value) => p.add(value))
  const replaced = ['attempt', 'priority', 'fairness_key', 'item_order', 'enqueued_at', 'granted']
  const text = `INSERT INTO ${ctx.tables.queueItems} (queue, run_key, seq, ${replaced.join(', ')})
    VALUES (${values.join(', ')}) ${ctx.dialect.upsert(['queue', 'run_key', 'seq'], replaced)}`
  await session.query(p.statement(text, true))
}

/**
 * Deletes items of `runId`: in `queues` (null: every queue), at position `seq` (null: every
 * position).
 */
export async function deleteRunItems(
  ctx: SqlContext,
  session: SqlSession,
  runId: string,
  queues: readonly string[] | null,
  seq: number | null = null,
): Promise<void> {
  const p = new Params(ctx.dialect)
  const where = [`run_key = ${runKeyOf(ctx, p, runId)}`]
  if (queues !== null) where.push(ctx.dialect.inList(p, 'queue', queues, 'text'))
  if (seq !== null) where.push(`seq = ${p.add(seq)}`)
  const text = `DELETE FROM ${ctx.tables.queueItems} WHERE ${where.join(' AND ')}`
  await session.query(p.statement(text, true))
}

/** Consumes the run's unconsumed messages named `name` (a position's grants, its attempt over). */
export async function consumeNamed(
  ctx: SqlContext,
  session: SqlSession,
  runId: string,
  name: string,
  now: number,
): Promise<void> {
  const p = new Params(ctx.dialect)
  const text = `UPDATE ${ctx.tables.messages} SET consumed_at = ${p.add(now)}
    WHERE run_key = ${runKeyOf(ctx, p, runId)} AND name = ${p.add(name)} AND consumed_at IS NULL`
  await session.query(p.statement(text, true))
}
