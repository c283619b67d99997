/**
 * The queue items batch ops write on SQLite (SaveCheckpointOp.enqueue / release,
 * FinishRunOp.releaseQueues, cancelRun), each only when its op applied, in the batch's
 * transaction; every change to a queue's line is followed by its grant pass (queue_grants.ts).
 */
import { queueSlotMessage } from '@cairn/core/store-kit'
import type { QueueRequest } from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'
import { grantQueue, grantQueues, type QueuePass } from './queue_grants.ts'

/**
 * What an enqueue's grant pass did: whether its item holds a slot after it, and the rest of
 * the pass (the others' grants, the throttle).
 */
export interface EnqueueOutcome {
  granted: boolean
  others: QueuePass
}

/** Store (or keep) the item of `runId`/`seq` and grant. */
export function enqueueItem(
  s: Statements,
  runId: string,
  seq: number,
  request: QueueRequest,
  now: number,
): EnqueueOutcome {
  const { queue, concurrency, attempt, priority, fairnessKey, rateLimit } = request
  const { enqueues: place } = s.upsertQueue.get(
    queue,
    concurrency,
    rateLimit?.limit ?? null,
    rateLimit?.periodMs ?? null,
  ) as { enqueues: number }
  s.upsertQueueItem.run(queue, seq, attempt, priority, fairnessKey, place, now, runId)
  const pass = grantQueue(s, queue, now, { runId, seq })
  const mine = pass.grants.find((g) => g.runId === runId && g.seq === seq)
  // Not granted now: granted before (a replayed save keeps its item as it is)?
  const granted =
    mine !== undefined ||
    (s.selectItemGranted.get(queue, runId, seq) as { granted: number } | undefined)?.granted === 1
  return { granted, others: { ...pass, grants: pass.grants.filter((g) => g !== mine) } }
}

/** The attempt at `runId`/`seq` is over: its item leaves `queue`, its grant is consumed, the queue grants. */
export function releaseItem(
  s: Statements,
  queue: string,
  runId: string,
  seq: number,
  now: number,
): QueuePass {
  s.consumeGrants.run(now, runId, queueSlotMessage(seq))
  s.deleteQueueItem.run(queue, runId, seq)
  return grantQueue(s, queue, now)
}

/** A finished run's items leave the queues it names, which then grant. */
export function releaseRunIn(
  s: Statements,
  runId: string,
  queues: readonly string[],
  now: number,
): QueuePass {
  s.deleteRunQueueItems.run(runId, JSON.stringify(queues))
  return grantQueues(s, queues, now)
}

/** A cancelled run (by its key) leaves every queue it was in, each of which then grants. */
export function releaseRunEverywhere(s: Statements, runKey: number, now: number): QueuePass {
  const left = s.deleteRunItems.all(runKey) as Array<{ queue: string }>
  return grantQueues(
    s,
    left.map((row) => row.queue),
    now,
  )
}
