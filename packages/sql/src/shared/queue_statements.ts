/**
 * The statements on queue rows and queue items (named queues: queue_writes.ts): the queue
 * rows' locks and counters, and the items a wave's saves, finishes and cancels put in or take
 * out — each kind for the whole wave in one statement, its rows bound as one row source
 * (Postgres' parameter limit never bounds a batch). The writes are texts for a group
 * (write_group.ts). What a grant pass reads and writes is in queue_line.ts. Placeholders are
 * bound in text order (MySQL's are positional).
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

/**
 * Inserts rows for queues that have none (in lock order), each with its request's concurrency
 * and rate; a row another writer just added stays.
 */
export async function insertQueues(
  ctx: SqlContext,
  session: SqlSession,
  requests: ReadonlyMap<string, Pick<QueueRequest, 'concurrency' | 'rateLimit'>>,
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

/**
 * Writes locked queue rows back (one UPDATE for all of them): their concurrency, their rate
 * and both counters.
 */
export function storeQueues(ctx: SqlContext, p: Params, rows: readonly QueueRow[]): string | null {
  if (rows.length === 0) return null
  const columns = [
    ['name', 'text'],
    ['concurrency', 'bigint'],
    ['rate_limit', 'bigint'],
    ['rate_period_ms', 'bigint'],
    ['next_order', 'bigint'],
    ['grants', 'bigint'],
  ] as const
  const values = rows.map((row) => [
    row.name,
    row.concurrency,
    row.rateLimit?.limit ?? null,
    row.rateLimit?.periodMs ?? null,
    row.nextOrder,
    row.grants,
  ])
  const source = ctx.dialect.rowSource(p, 'v', columns, values)
  const assign = (set: string) =>
    ['concurrency', 'rate_limit', 'rate_period_ms', 'next_order', 'grants']
      .map((column) => `${set}${column} = v.${column}`)
      .join(', ')
  const names = ctx.dialect.inList(
    p,
    'q.name',
    rows.map((row) => row.name),
    'text',
  )
  return ctx.dialect.updateFrom(
    ctx.tables.queues,
    'q',
    source,
    `q.name = v.name AND ${names}`,
    assign,
  )
}

/** A run a batch cancels, as the lock pass found it: its key and the queues it has items in. */
export interface CancelledRun {
  key: number
  queues: string[]
}

/**
 * The queues each of `runIds` has items in (a cancel releases them all), with the run's key;
 * runs without items are absent. A locking read, like every read before the queue locks: on
 * a MySQL connection at REPEATABLE READ a plain read would fix the transaction's snapshot
 * before the queue locks are held, and the grant passes would count slots from that older
 * snapshot. The runs are locked in key order, as the wave locks them.
 */
export async function queuesOfRuns(
  ctx: SqlContext,
  session: SqlSession,
  runIds: readonly string[],
): Promise<Map<string, CancelledRun>> {
  const p = new Params(ctx.dialect)
  const text = `SELECT r.id, r.key, i.queue FROM ${ctx.tables.runs} r
    JOIN ${ctx.tables.queueItems} i ON i.run_key = r.key
    WHERE ${ctx.dialect.inList(p, 'r.id', runIds, 'text')} ORDER BY r.key ${ctx.dialect.lockRows}`
  const found = new Map<string, { key: number; queues: Set<string> }>()
  for (const [runId, key, queue] of (await session.query(p.statement(text))).rows) {
    const run = found.get(runId as string) ?? { key: toSafeInteger(key, 'key'), queues: new Set() }
    run.queues.add(queue as string)
    found.set(runId as string, run)
  }
  return new Map(
    [...found].map(([runId, run]) => [runId, { key: run.key, queues: [...run.queues] }]),
  )
}

/**
 * What a wave's queue writes look up by run: the run's key, and (`queue` not '') the item at
 * (queue, seq) as stored.
 */
export interface ItemLookup {
  runId: string
  /** '' (no queue has that name): the run's key only. */
  queue: string
  seq: number
}

/** A position's item as an enqueue finds it: the attempt stored (null: none). */
export interface FoundItem {
  runKey: number
  attempt: number | null
  /** The item there holds a slot (meaningful with its `attempt`). */
  granted: boolean
}

/**
 * The lookups of a wave, in one read: each one's run key and item (undefined: the run is
 * gone, which an applied op's run never is).
 */
export async function readItems(
  ctx: SqlContext,
  session: SqlSession,
  lookups: readonly ItemLookup[],
): Promise<(FoundItem | undefined)[]> {
  const p = new Params(ctx.dialect)
  const columns = [
    ['ord', 'bigint'],
    ['run_id', 'text'],
    ['queue', 'text'],
    ['seq', 'bigint'],
  ] as const
  const rows = lookups.map(({ runId, queue, seq }, ord) => [ord, runId, queue, seq])
  const source = ctx.dialect.rowSource(p, 'v', columns, rows)
  // The ids again as a list: a planner estimates it well (the row source looks like 100 rows
  // to Postgres, which then scans the runs), so each run is found by its index.
  const ids = ctx.dialect.inList(p, 'r.id', [...new Set(lookups.map((l) => l.runId))], 'text')
  const text = `SELECT v.ord, r.key, i.attempt, i.granted FROM ${source}
    JOIN ${ctx.tables.runs} r ON r.id = v.run_id AND ${ids}
    LEFT JOIN ${ctx.tables.queueItems} i ON i.queue = v.queue AND i.run_key = r.key AND i.seq = v.seq`
  const found = new Array<FoundItem | undefined>(lookups.length)
  for (const [ord, key, attempt, granted] of (await session.query(p.statement(text))).rows)
    found[toSafeInteger(ord, 'ord')] = {
      runKey: toSafeInteger(key, 'key'),
      attempt: attempt === null ? null : toSafeInteger(attempt, 'attempt'),
      granted: granted !== null && Number(granted) === 1,
    }
  return found
}

/** An item a wave stores at the back of its queue's line (`order`), not granted. */
export interface NewItem {
  runKey: number
  seq: number
  request: QueueRequest
  order: number
}

/** Stores the items (one upsert), each replacing the one of another attempt at its place. */
export function putItems(
  ctx: SqlContext,
  p: Params,
  items: readonly NewItem[],
  now: number,
): string | null {
  if (items.length === 0) return null
  const columns = [
    ['queue', 'text'],
    ['run_key', 'bigint'],
    ['seq', 'bigint'],
    ['attempt', 'bigint'],
    ['priority', 'int'],
    ['fairness_key', 'text'],
    ['item_order', 'bigint'],
    ['enqueued_at', 'bigint'],
  ] as const
  const rows = items.map(({ runKey, seq, request, order }) => [
    request.queue,
    runKey,
    seq,
    request.attempt,
    request.priority,
    request.fairnessKey,
    order,
    now,
  ])
  const source = ctx.dialect.rowSource(p, 'v', columns, rows)
  const replaced = ['attempt', 'priority', 'fairness_key', 'item_order', 'enqueued_at', 'granted']
  return `INSERT INTO ${ctx.tables.queueItems} (queue, run_key, seq, ${replaced.join(', ')})
    SELECT v.queue, v.run_key, v.seq, v.attempt, v.priority, v.fairness_key, v.item_order,
      v.enqueued_at, 0 FROM ${source}
    ${ctx.dialect.upsert(['queue', 'run_key', 'seq'], replaced)}`
}

/**
 * Items to delete: a run's item at (queue, seq); with `seq` null, every item of the run in
 * `queue`; with `queue` null as well, every item of the run.
 */
export interface ItemsOf {
  runKey: number
  queue: string | null
  seq: number | null
}

/** Deletes the items of `places` (one DELETE). */
export function deleteItemsOf(
  ctx: SqlContext,
  p: Params,
  places: readonly ItemsOf[],
): string | null {
  if (places.length === 0) return null
  const columns = [
    ['run_key', 'bigint'],
    ['queue', 'text'],
    ['seq', 'bigint'],
    ['every_queue', 'int'],
    ['every_seq', 'int'],
  ] as const
  // '' and 0 under a flag: no NULL travels through the row source.
  const rows = places.map(({ runKey, queue, seq }) => [
    runKey,
    queue ?? '',
    seq ?? 0,
    queue === null ? 1 : 0,
    seq === null ? 1 : 0,
  ])
  const source = ctx.dialect.rowSource(p, 'v', columns, rows)
  const items = ctx.tables.queueItems
  const postgres = ctx.dialect.name === 'postgres'
  // Postgres deletes with USING; MySQL with a multi-table DELETE naming the table itself
  // (MariaDB resolves an alias there in the default database, which the store may not have).
  // The run key leads each probe (cairn_queue_items_run) either way.
  const i = postgres ? 'i' : items
  const keys = runKeys(ctx, p, `${i}.run_key`, places)
  const on = `${i}.run_key = v.run_key AND ${keys} AND (v.every_queue = 1 OR ${i}.queue = v.queue)
    AND (v.every_seq = 1 OR ${i}.seq = v.seq)`
  return postgres
    ? `DELETE FROM ${items} i USING ${source} WHERE ${on}`
    : `DELETE ${items} FROM ${items} JOIN ${source} ON ${on}`
}

/** Consumes the unconsumed messages named `name` of each run (a position's grants, its attempt over). */
export function consumeNamed(
  ctx: SqlContext,
  p: Params,
  named: readonly { runKey: number; name: string }[],
  now: number,
): string | null {
  if (named.length === 0) return null
  const columns = [
    ['run_key', 'bigint'],
    ['name', 'text'],
  ] as const
  const source = ctx.dialect.rowSource(
    p,
    'v',
    columns,
    named.map(({ runKey, name }) => [runKey, name]),
  )
  // The source's placeholder comes first in MySQL's text (UPDATE … JOIN … ON … SET), so bound
  // first, then the keys of ON.
  const keys = runKeys(ctx, p, 'm.run_key', named)
  const on = `m.run_key = v.run_key AND ${keys} AND m.name = v.name AND m.consumed_at IS NULL`
  const assign = (set: string) => `${set}consumed_at = ${p.add(now)}`
  return ctx.dialect.updateFrom(ctx.tables.messages, 'm', source, on, assign)
}

/**
 * `column IN (the run keys of rows)`, beside a join on a row source: a planner estimates the
 * list well, where the source looks like 100 rows to Postgres and makes it scan the table
 * (the messages, the runs) rather than probe its index.
 */
export function runKeys(
  ctx: SqlContext,
  p: Params,
  column: string,
  rows: readonly { runKey: number }[],
): string {
  return ctx.dialect.inList(p, column, [...new Set(rows.map((row) => row.runKey))], 'bigint')
}
