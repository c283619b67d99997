/**
 * A queue's grant pass on Postgres and MySQL, run under the lock of its queue row (the caller
 * holds it): while fewer items hold slots than the concurrency, the next waiter by the rule
 * every store applies (nextWaiter: priority, then the fairness key granted least recently,
 * then line order) is granted, and its run is told by a message delivered by the
 * deliverMessage rules — the portable writer's inbox writes (locked_inbox.ts), so dedupe,
 * inbox seqs and wake-ups are the ones every delivery gets. Items of ended runs met on the way
 * are deleted. A queue with a rate grants no more than its log allows (queue_rate_log.ts); a
 * queue without one runs no statement of it.
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
} from './locked_inbox.ts'
import {
  deleteItems,
  loadWaiters,
  markGranted,
  readLine,
  storeLastGrants,
  type ItemPlace,
  type Waiter,
} from './queue_line.ts'
import { logGrants, rateAllows } from './queue_rate_log.ts'
import type { QueueRow } from './queue_statements.ts'
import type { Wave } from './wave_plan.ts'

/**
 * What a pass did: the grants delivered as messages (OpResult.grants), whether one woke a
 * suspended run, whether the enqueuing item (`own`) was granted — without a message: its
 * op's result tells it — and the queue when its rate stopped a grant (OpResult.throttled).
 */
export interface GrantOutcome {
  grants: SlotGrant[]
  woke: boolean
  own: boolean
  throttled: QueueThrottle[]
}

const NONE: GrantOutcome = { grants: [], woke: false, own: false, throttled: [] }

/** An item as one string, to find a grant by: its run's key and its position. */
export function itemId(place: ItemPlace): string {
  return `${place.runKey}:${place.seq}`
}

/**
 * Grants into the free slots of the locked queue `row`, whose `grants` counter moves on.
 * `own`: the item an enqueue of this batch stored (itemId), told of its grant by its result.
 */
export async function grantPass(
  ctx: SqlContext,
  session: SqlSession,
  row: QueueRow,
  now: number,
  own?: string,
): Promise<GrantOutcome> {
  const { held, ended } = await readLine(ctx, session, row.name)
  if (ended.length > 0) await deleteItems(ctx, session, row.name, ended)
  const free = row.concurrency - held
  if (free <= 0) return NONE
  const rate = row.rateLimit
  const first = row.grants
  const allowance =
    rate === null
      ? { allowed: free, retryAt: null }
      : await rateAllows(ctx, session, { name: row.name, grants: first, rate }, free, now)
  // One waiter past the allowance is loaded (when the rate stopped one): it tells a throttle
  // (a waiter beside a free slot) from a line that ran out.
  const wanted = allowance.retryAt === null ? free : allowance.allowed + 1
  const waiters = await loadWaiters(ctx, session, row.name, wanted)
  const picked = pick(waiters, allowance.allowed, row)
  const throttled =
    allowance.retryAt !== null && waiters.length > picked.length
      ? [{ queue: row.name, retryAt: allowance.retryAt }]
      : []
  if (picked.length === 0) return { ...NONE, throttled }
  await markGranted(ctx, session, row.name, picked)
  const lastGrants = new Map(picked.map((w) => [w.fairnessKey, w.lastGrant]))
  await storeLastGrants(ctx, session, row.name, lastGrants)
  if (rate !== null) await logGrants(ctx, session, { name: row.name, rate }, first, row.grants, now)
  const others = picked.filter((w) => itemId(w) !== own)
  const delivered = others.length === 0 ? NONE : await deliverGrants(ctx, session, others, now)
  return { ...delivered, own: others.length < picked.length, throttled }
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

/** The grant messages, accepted as deliveries are (a duplicate answers with its first seq). */
async function deliverGrants(
  ctx: SqlContext,
  session: SqlSession,
  picked: readonly Waiter[],
  now: number,
): Promise<GrantOutcome> {
  const wave: Wave = picked.map((w, index) => ({ index, op: grantMessage(w) }))
  const runs = await lockRuns(
    ctx,
    session,
    picked.map((w) => w.runId),
  )
  const dedupes = await lockDedupes(ctx, session, wave, runs)
  const inbox = acceptMessages(
    wave,
    picked.map(() => true),
    runs,
    dedupes,
  )
  for (const statement of [countMessages(ctx, inbox, now), insertMessages(ctx, inbox, now)])
    if (statement !== null) await session.query(statement)
  const grants: SlotGrant[] = []
  picked.forEach((w, i) => {
    const inboxSeq =
      inbox.seqs.get(i) ?? dedupes.get(dedupeKey(w.runKey, queueGrantId(w.seq, w.attempt)))
    if (inboxSeq !== undefined)
      grants.push({ runId: w.runId, seq: w.seq, attempt: w.attempt, inboxSeq })
  })
  const woke = [...runs.values()].some((r) => r.status === 'waiting' && inbox.named.has(r.key))
  return { grants, woke, own: false, throttled: [] }
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
