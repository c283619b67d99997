/**
 * Grant passes on Postgres and MySQL, run under the locks of their queue rows (the caller
 * holds them), in two steps so the passes of several queues share their writes:
 *
 * - pickGrants, per queue: while fewer slots are in use (held by granted items, or by unexpired
 *   leases: queue_leases.ts) than the concurrency, the next waiter by the rule every store
 *   applies (nextWaiter: priority, then the fairness key granted least recently, then line
 *   order) is picked, up to every free slot at once. Items of ended runs met on the way are
 *   deleted. A queue with a rate picks no more than its log allows (queue_rate_log.ts); a
 *   queue without one runs no statement of it.
 * - writeGrants, for the picks of every pass: the grant messages of the picks no result tells
 *   are accepted by the deliverMessage rules — the portable writer's inbox writes
 *   (locked_inbox.ts), so dedupe, inbox seqs and wake-ups are the ones every delivery gets —
 *   then every write of the passes goes as one group (write_group.ts: one statement on
 *   Postgres): the items marked granted, their keys' last grants, the rate logs, the messages
 *   counted on their runs and stored.
 */
import type { DeliverMessageOp, QueueThrottle, SlotGrant } from '@cairn/core/contracts'
import { nextWaiter, queueGrantId, queueSlotMessage } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import {
  acceptMessages,
  countMessages,
  dedupeKey,
  insertMessages,
  lockDedupes,
  lockRuns,
  lockedRuns,
  type InboxWrites,
  type LockedRun,
} from './locked_inbox.ts'
import {
  deleteItems,
  markGranted,
  readLine,
  storeLastGrants,
  type PickedItem,
  type Waiter,
} from './queue_line.ts'
import { logGrants, rateAllows } from './queue_rate_log.ts'
import { toSafeInteger } from './integers.ts'
import { Params } from './params.ts'
import { runKeys, type QueueRow } from './queue_statements.ts'
import type { Wave } from './wave_plan.ts'
import { writeTogether, type GroupedWrite } from './write_group.ts'

/** What one queue's pass picked (nothing is written yet but the ended items' deletion). */
export interface QueuePick {
  queue: string
  /** The waiters granted, in grant order, each with its grant number (`lastGrant`). */
  picked: Waiter[]
  /** The queue, when its rate stopped a grant with a waiter beside a free slot. */
  throttled: QueueThrottle[]
  /** A rate-limited queue's grants to log: numbers `first + 1` … `last`. */
  log: { rate: NonNullable<QueueRow['rateLimit']>; first: number; last: number } | null
}

/**
 * What a queue's pass did, once written: the grants delivered as messages (OpResult.grants),
 * whether one woke a suspended run, and the queue when its rate stopped a grant.
 */
export interface QueueGrants {
  grants: SlotGrant[]
  woke: boolean
  throttled: QueueThrottle[]
}

/**
 * Picks the waiters to grant into the free slots of the locked queue `row`, whose `grants`
 * counter moves on (the caller writes the row back).
 */
export async function pickGrants(
  ctx: SqlContext,
  session: SqlSession,
  row: QueueRow,
  now: number,
): Promise<QueuePick> {
  const none: QueuePick = { queue: row.name, picked: [], throttled: [], log: null }
  const { held, leased, ended, waiters } = await readLine(
    ctx,
    session,
    row.name,
    row.concurrency,
    now,
  )
  if (ended.length > 0) await deleteItems(ctx, session, row.name, ended)
  const free = row.concurrency - held - leased
  if (free <= 0 || waiters.length === 0) return none
  const rate = row.rateLimit
  const first = row.grants
  const allowance =
    rate === null
      ? { allowed: free, retryAt: null }
      : await rateAllows(ctx, session, { name: row.name, grants: first, rate }, free, now)
  // The line holds the first `free` waiters of each (priority, fairness key): those the rule
  // may pick, and (when the rate stops one) a waiter past the allowance, which tells a
  // throttle (a waiter beside a free slot) from a line that ran out.
  const picked = pick(waiters, allowance.allowed, row)
  const throttled =
    allowance.retryAt !== null && waiters.length > picked.length
      ? [{ queue: row.name, retryAt: allowance.retryAt }]
      : []
  const log = rate !== null && picked.length > 0 ? { rate, first, last: row.grants } : null
  return { queue: row.name, picked, throttled, log }
}

/** Up to `count` waiters in grant order, each given its grant number (`lastGrant`) from `row`. */
function pick(waiters: readonly Waiter[], count: number, row: QueueRow): Waiter[] {
  const line = new Set(waiters)
  const lastGrant = new Map(waiters.map((w) => [w.fairnessKey, w.lastGrant]))
  const picked: Waiter[] = []
  while (picked.length < count) {
    const next = nextWaiter(line, (key) => lastGrant.get(key) ?? 0)
    if (next === undefined) break
    line.delete(next)
    row.grants += 1
    lastGrant.set(next.fairnessKey, row.grants)
    picked.push({ ...next, lastGrant: row.grants })
  }
  return picked
}

/**
 * Writes the picks of several queues' passes and delivers the grant messages of those
 * `told` does not claim (an enqueuing item told of its grant by its op's result): the runs
 * and dedupes read under locks (when a message goes out: one statement on Postgres, two on
 * MySQL), then the items marked, their
 * keys' last grants, the rate logs, the messages counted and inserted, and the caller's
 * `also` (its queue rows) as one group of writes (write_group.ts: one statement on Postgres).
 * Returns each pick's outcome, in the order of `picks`.
 */
export async function writeGrants(
  ctx: SqlContext,
  session: SqlSession,
  picks: readonly QueuePick[],
  now: number,
  told: (queue: string, waiter: Waiter) => boolean,
  also: readonly GroupedWrite[],
): Promise<QueueGrants[]> {
  const all: PickedItem[] = picks.flatMap(({ queue, picked }) =>
    picked.map((waiter) => ({ queue, waiter })),
  )
  const others = all.filter(({ queue, waiter }) => !told(queue, waiter))
  const delivery = others.length === 0 ? null : await acceptGrants(ctx, session, others)
  const writes: GroupedWrite[] = [
    (p) => markGranted(ctx, p, all),
    (p) => storeLastGrants(ctx, p, all),
    ...picks.flatMap(({ queue, log }) =>
      log === null ? [] : logGrants(ctx, { name: queue, rate: log.rate }, log.first, log.last, now),
    ),
    ...(delivery === null
      ? []
      : [
          (p: Params) => countMessages(ctx, delivery.inbox, now, p)?.text ?? null,
          (p: Params) => insertMessages(ctx, delivery.inbox, now, p)?.text ?? null,
        ]),
    ...also,
  ]
  await writeTogether(ctx, session, writes)
  const delivered = delivery?.delivered ?? new Map<Waiter, Delivered>()
  return picks.map(({ picked, throttled }) => {
    const grants: SlotGrant[] = []
    let woke = false
    for (const waiter of picked) {
      const made = delivered.get(waiter)
      if (made === undefined) continue
      if (made.grant !== null) grants.push(made.grant)
      woke ||= made.woke
    }
    return { grants, woke, throttled }
  })
}

/** A grant message as delivered: its SlotGrant (null: not delivered) and whether it woke its run. */
interface Delivered {
  grant: SlotGrant | null
  woke: boolean
}

/**
 * The grant messages, accepted as deliveries are (a duplicate answers with its first seq): the
 * runs and the dedupes read under locks, and what the inbox writes will be.
 */
async function acceptGrants(
  ctx: SqlContext,
  session: SqlSession,
  picked: readonly PickedItem[],
): Promise<{ inbox: InboxWrites; delivered: Map<Waiter, Delivered> }> {
  const waiters = picked.map(({ waiter }) => waiter)
  const wave: Wave = waiters.map((w, index) => ({ index, op: grantMessage(w) }))
  const { runs, dedupes } =
    ctx.dialect.name === 'postgres'
      ? await lockRecipients(ctx, session, waiters)
      : await lockRuns(
          ctx,
          session,
          waiters.map((w) => w.runId),
        ).then(async (runs) => ({ runs, dedupes: await lockDedupes(ctx, session, wave, runs) }))
  const inbox = acceptMessages(
    wave,
    waiters.map(() => true),
    runs,
    dedupes,
  )
  const delivered = new Map<Waiter, Delivered>()
  waiters.forEach((w, i) => {
    const inboxSeq =
      inbox.seqs.get(i) ?? dedupes.get(dedupeKey(w.runKey, queueGrantId(w.seq, w.attempt)))
    const run = runs.get(w.runId)
    delivered.set(w, {
      grant:
        inboxSeq === undefined
          ? null
          : { runId: w.runId, seq: w.seq, attempt: w.attempt, inboxSeq },
      woke: run !== undefined && run.status === 'waiting' && inbox.named.has(run.key),
    })
  })
  return { inbox, delivered }
}

/**
 * Postgres: lockRuns and lockDedupes in one statement — the recipients' runs locked in key
 * order, and the messages holding their grants' dedupe ids (by the run keys the items hold).
 * The messages are read in the statement's snapshot: one of those ids committed meanwhile by
 * a delivery this statement waited for is not seen, and the insert then fails on the unique
 * index — a retryable failure, as in the wave statement (postgres/wave_statement.ts). Only a
 * grant pass of the item's queue, whose lock this transaction holds, delivers such an id.
 */
async function lockRecipients(
  ctx: SqlContext,
  session: SqlSession,
  waiters: readonly Waiter[],
): Promise<{ runs: Map<string, LockedRun>; dedupes: Map<string, number> }> {
  const p = new Params(ctx.dialect)
  const { runs, messages } = ctx.tables
  const ids = ctx.dialect.inList(p, 'r.id', [...new Set(waiters.map((w) => w.runId))], 'text')
  const keys = runKeys(ctx, p, 'm.run_key', waiters)
  const wanted = ctx.dialect.rowSource(
    p,
    'v',
    [
      ['run_key', 'bigint'],
      ['dedupe_id', 'text'],
    ],
    waiters.map((w) => [w.runKey, queueGrantId(w.seq, w.attempt)]),
  )
  const text = `WITH lr AS MATERIALIZED (SELECT r.key, r.id, r.status, r.lease_epoch, r.inbox_seq,
      r.wake_on, r.wake_epoch FROM ${runs} r WHERE ${ids} ORDER BY r.key ${ctx.dialect.lockRows})
    SELECT 0, key, id, status, lease_epoch, inbox_seq, wake_on, wake_epoch FROM lr
    UNION ALL
    SELECT 1, m.run_key, m.dedupe_id, NULL, NULL, m.seq, NULL, NULL FROM ${messages} m
    WHERE ${keys} AND (m.run_key, m.dedupe_id) IN (SELECT v.run_key, v.dedupe_id FROM ${wanted})`
  const rows = (await session.query(p.statement(text))).rows
  const dedupes = new Map<string, number>()
  for (const row of rows)
    if (toSafeInteger(row[0], 'part') === 1)
      dedupes.set(
        dedupeKey(toSafeInteger(row[1], 'run_key'), row[2] as string),
        toSafeInteger(row[5], 'seq'),
      )
  const locked = rows.flatMap((row) => (toSafeInteger(row[0], 'part') === 0 ? [row.slice(1)] : []))
  return { runs: lockedRuns(locked), dedupes }
}

function grantMessage(w: Waiter): DeliverMessageOp {
  return {
    type: 'deliverMessage',
    message: {
      runId: w.runId,
      kind: 'signal',
      name: queueSlotMessage(w.seq),
      dedupeId: queueGrantId(w.seq, w.attempt),
      payload: 'null',
    },
  }
}
