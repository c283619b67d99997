/**
 * Broadcast events on SQLite: the log calls (each its own transaction; an append's
 * accumulator adds in it: event_batches.ts) and the event wait rows that ride on batch ops
 * (inside the batch's transaction, only when the op applied).
 */
import type {
  EventAppend,
  EventBatchAdd,
  EventPruning,
  EventRecord,
  EventWaitRecord,
  EventWaitRef,
  FinishRunOp,
  SaveCheckpointOp,
  SuspendRunOp,
} from '@cairn/core/contracts'
import { toEventRecord, toEventWaitRecord } from '../../shared/event_rows.ts'
import { toSafeInteger } from '../../shared/integers.ts'
import type { Statements } from '../statements.ts'
import { addToBatches } from './event_batches.ts'

/** The event unless its id is taken, with its accumulator adds (checked) when it was appended. */
export function appendEvent(
  s: Statements,
  event: EventRecord,
  prune: EventPruning,
  adds: readonly EventBatchAdd[],
): EventAppend {
  const { changes } = s.insertEvent.run(event.id, event.name, event.payload, event.publishedAt)
  const appended = Number(changes) > 0
  // A retried publish adds nothing twice.
  const batches = appended ? addToBatches(s, adds, event) : []
  s.pruneEvents.run(prune.before, event.id, prune.limit)
  if (appended) return { publishedAt: event.publishedAt, appended, batches }
  const stored = s.selectEventPublishedAt.get(event.id) as { published_at: unknown } | undefined
  return {
    publishedAt:
      stored === undefined ? event.publishedAt : toSafeInteger(stored.published_at, 'published_at'),
    appended,
    batches,
  }
}

export function loadEvents(s: Statements, name: string, since: number): EventRecord[] {
  return (s.loadEvents.all(name, since) as unknown as unknown[][]).map(toEventRecord)
}

export function loadEventWaits(s: Statements, name: string): EventWaitRecord[] {
  return (s.loadEventWaits.all(name) as unknown as unknown[][]).map(toEventWaitRecord)
}

export function removeEventWaits(s: Statements, waits: readonly EventWaitRef[]): number {
  let removed = 0
  for (const { runId, seq } of waits) removed += Number(s.deleteEventWait.run(runId, seq).changes)
  return removed
}

/** An applied suspend registers its event waits. */
export function registerEventWaits(s: Statements, op: SuspendRunOp): void {
  for (const wait of op.eventWaits ?? [])
    s.insertEventWait.run(op.fence.runId, wait.seq, wait.name, wait.match, wait.startedAt)
}

/** An applied save that settles an event wait removes its registration: the wait is over. */
export function endEventWait(s: Statements, op: SaveCheckpointOp): void {
  const { kind, status, seq } = op.checkpoint
  if (kind === 'event' && (status === 'completed' || status === 'failed'))
    s.deleteEventWait.run(op.fence.runId, seq)
}

/** An applied finish with `clearEventWaits` removes every wait of its run. */
export function clearEventWaits(s: Statements, op: FinishRunOp): void {
  if (op.clearEventWaits === true) s.deleteRunEventWaits.run(op.fence.runId)
}
