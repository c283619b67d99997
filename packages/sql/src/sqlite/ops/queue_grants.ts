/**
 * A queue's grant pass on SQLite (StateStore.grantQueueSlots), inside the caller's BEGIN
 * IMMEDIATE: count the slots in use from the items and their runs, then grant the next
 * waiters into the free slots, one query each (the rule's order is in the query). Each grant
 * of another run's item delivers its message by the deliverMessage rules.
 */
import { queueGrantId, queueSlotMessage } from '@cairn/core/store-kit'
import type { SlotGrant } from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'
import { deliverMessage } from './deliver_message.ts'

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

interface Waiter {
  run_key: number
  run_id: string
  status: string
  seq: number
  attempt: number
  fairness_key: string
}

/**
 * Grant `queue`'s free slots; the grants made (none for a queue never written). `own`: the
 * item an enqueue just stored, whose grant its op's result tells (no message: inboxSeq
 * undefined).
 */
export function grantQueue(
  s: Statements,
  queue: string,
  now: number,
  own?: { runId: string; seq: number },
): QueueGrant[] {
  const room = s.selectQueueRoom.get(queue) as { free: number } | undefined
  const grants: QueueGrant[] = []
  for (let free = room?.free ?? 0; free > 0; free--) {
    const next = s.selectNextWaiter.get(queue) as Waiter | undefined
    if (next === undefined) break
    const mine = own !== undefined && own.runId === next.run_id && own.seq === next.seq
    grants.push(grant(s, queue, next, now, !mine))
  }
  return grants
}

/**
 * Grant each queue once (a run's items in several queues, a finish naming several), first
 * dropping its items of ended runs. Those hold no slot and are never granted (every count
 * joins the runs), so the hot passes — an enqueue's, a release's — leave them: they go here,
 * with the ends, and in grantQueueSlots' sweeps.
 */
export function grantQueues(s: Statements, queues: Iterable<string>, now: number): QueueGrant[] {
  return [...new Set(queues)].flatMap((queue) => {
    s.purgeQueue.run(queue)
    return grantQueue(s, queue, now)
  })
}

/** What grants made to other items add to an applied op's result (OpResult.grants, promoted). */
export function grantFields(grants: readonly QueueGrant[]): {
  promoted?: true
  grants?: SlotGrant[]
} {
  const delivered = grants.flatMap(({ runId, seq, attempt, inboxSeq }) =>
    inboxSeq === undefined ? [] : [{ runId, seq, attempt, inboxSeq }],
  )
  return {
    ...(grants.some((g) => g.woke) ? { promoted: true as const } : {}),
    ...(delivered.length === 0 ? {} : { grants: delivered }),
  }
}

/**
 * The item holds a slot from now; its key becomes the one granted most recently; its run is
 * told by a message (`tell`), unless its own op's result tells it.
 */
function grant(s: Statements, queue: string, item: Waiter, now: number, tell: boolean): QueueGrant {
  s.markGranted.run(queue, item.run_key, item.seq)
  const { grants } = s.countGrant.get(queue) as { grants: number }
  s.recordKeyGrant.run(queue, item.fairness_key, grants)
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
