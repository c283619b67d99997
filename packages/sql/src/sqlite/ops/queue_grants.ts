/**
 * A queue's grant pass on SQLite (StateStore.grantQueueSlots), inside the caller's BEGIN
 * IMMEDIATE: count the slots in use from the items and their runs (and the slots of the
 * queue's unexpired leases: queue_leases.ts), then grant the next waiters into the free
 * slots, one query each (the rule's order is in the query), as far as the queue's rate
 * allows (queue_rate.ts). Each grant of another run's item delivers its
 * message by the deliverMessage rules.
 */
import { queueGrantId, queueSlotMessage } from '@cairn/core/store-kit'
import type { QueueRateLimit, QueueThrottle, SlotGrant } from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'
import { deliverMessage } from './deliver_message.ts'
import { logGrant, pruneGrantLog, rateAllowed, storedRate } from './queue_rate.ts'

/** A grant a pass made: the item, and the inbox seq of its message. */
export interface QueueGrant {
  runId: string
  seq: number
  attempt: number
  /** Undefined only if the message was refused, which a waiter's live run never does. */
  inboxSeq: number | undefined
  /**
   * The run was suspended (waiting or blocked) when granted: the grant may have made it
   * claimable (OpResult.promoted: its engine looks for work at once).
   */
  woke: boolean
}

/** What grant passes did: the grants made, and the queues whose rate stopped a grant. */
export interface QueuePass {
  grants: QueueGrant[]
  /** One entry per pass the rate stopped: a waiter was left beside a free slot. */
  throttled: QueueThrottle[]
}

interface Waiter {
  run_key: number
  run_id: string
  status: string
  seq: number
  attempt: number
  fairness_key: string
}

interface Room {
  free: number
  grants: number
  rate_limit: number | null
  rate_period_ms: number | null
}

/**
 * Grant `queue`'s free slots as far as its rate allows; the grants made (none for a queue
 * never written) and the throttle, if the rate stopped one. `own`: the item an enqueue just
 * stored, whose grant its op's result tells (no message: inboxSeq undefined).
 */
export function grantQueue(
  s: Statements,
  queue: string,
  now: number,
  own?: { runId: string; seq: number },
): QueuePass {
  const pass: QueuePass = { grants: [], throttled: [] }
  const room = s.selectQueueRoom.get(now, queue) as Room | undefined
  if (room === undefined) return pass
  const rate = storedRate(room.rate_limit, room.rate_period_ms)
  const before = Number(room.grants)
  // Read once, at the first waiter: a pass with no waiter (or no rate) reads no log.
  let allowance: { allowed: number; retryAt: number | null } | undefined
  for (let free = room.free; free > 0; free--) {
    const next = s.selectNextWaiter.get(queue) as Waiter | undefined
    if (next === undefined) break
    if (rate !== null) {
      allowance ??= rateAllowed(s, queue, before, rate, room.free, now)
      if (allowance.retryAt !== null && pass.grants.length === allowance.allowed) {
        pass.throttled.push({ queue, retryAt: allowance.retryAt })
        break
      }
    }
    const mine = own !== undefined && own.runId === next.run_id && own.seq === next.seq
    pass.grants.push(grant(s, queue, next, now, !mine, rate))
  }
  if (rate !== null && pass.grants.length > 0)
    pruneGrantLog(s, queue, before + pass.grants.length, rate, now)
  return pass
}

/**
 * Grant each queue once (a run's items in several queues, a finish naming several), first
 * dropping its items of ended runs. Those hold no slot and are never granted (every count
 * joins the runs), so the hot passes — an enqueue's, a release's — leave them: they go here,
 * with the ends, and in grantQueueSlots' sweeps.
 */
export function grantQueues(s: Statements, queues: Iterable<string>, now: number): QueuePass {
  const all: QueuePass = { grants: [], throttled: [] }
  for (const queue of new Set(queues)) {
    s.purgeQueue.run(queue)
    const pass = grantQueue(s, queue, now)
    all.grants.push(...pass.grants)
    all.throttled.push(...pass.throttled)
  }
  return all
}

/** The grants of a pass as delivered: those told by a message (OpResult.grants). */
export function deliveredGrants(grants: readonly QueueGrant[]): SlotGrant[] {
  return grants.flatMap(({ runId, seq, attempt, inboxSeq }) =>
    inboxSeq === undefined ? [] : [{ runId, seq, attempt, inboxSeq }],
  )
}

/**
 * What grant passes add to an applied op's result: the grants made to other items
 * (OpResult.grants, promoted) and the queues their rate stopped (OpResult.throttled).
 */
export function grantFields(pass: QueuePass): {
  promoted?: true
  grants?: SlotGrant[]
  throttled?: QueueThrottle[]
} {
  const delivered = deliveredGrants(pass.grants)
  return {
    ...(pass.grants.some((g) => g.woke) ? { promoted: true as const } : {}),
    ...(delivered.length === 0 ? {} : { grants: delivered }),
    ...(pass.throttled.length === 0 ? {} : { throttled: pass.throttled }),
  }
}

/**
 * The item holds a slot from now; its key becomes the one granted most recently; its run is
 * told by a message (`tell`), unless its own op's result tells it; a rated queue logs the
 * grant's time.
 */
function grant(
  s: Statements,
  queue: string,
  item: Waiter,
  now: number,
  tell: boolean,
  rate: QueueRateLimit | null,
): QueueGrant {
  s.markGranted.run(queue, item.run_key, item.seq)
  const { grants } = s.countGrant.get(queue) as { grants: number }
  s.recordKeyGrant.run(queue, item.fairness_key, grants)
  // Only a rated queue logs its grants: a rate set later counts from then.
  if (rate !== null) logGrant(s, queue, grants, now)
  if (!tell)
    return {
      runId: item.run_id,
      seq: item.seq,
      attempt: item.attempt,
      inboxSeq: undefined,
      woke: false,
    }
  const message = {
    runId: item.run_id,
    kind: 'signal' as const,
    name: queueSlotMessage(item.seq),
    dedupeId: queueGrantId(item.seq, item.attempt),
    payload: 'null',
  }
  const delivered = deliverMessage(s, { type: 'deliverMessage', message }, now)
  // Under its dedupe id, a grant delivered before (same attempt) answers with its first seq.
  const inboxSeq = delivered.status === 'delivered' ? delivered.seq : undefined
  const woke = item.status === 'waiting' || item.status === 'blocked'
  return { runId: item.run_id, seq: item.seq, attempt: item.attempt, inboxSeq, woke }
}
