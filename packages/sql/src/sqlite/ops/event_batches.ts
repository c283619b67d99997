/**
 * Event accumulators on SQLite, each call inside one BEGIN IMMEDIATE (the writer is alone:
 * what it reads cannot change before it writes). An append's adds follow the plan every SQL
 * store writes (shared/event_batch_plan.ts); a claim walks the due index in claim order.
 */
import { InvalidArgumentError } from '@cairn/core'
import type {
  ClaimEventBatchesRequest,
  ClaimedEventBatch,
  ClaimedEventBatches,
  EventBatchAdd,
  EventBatchState,
  EventRecord,
} from '@cairn/core/contracts'
import { earliest } from '../../shared/event_batch_claims.ts'
import { planAdds, slotOf, type StoredAccumulator } from '../../shared/event_batch_plan.ts'
import { toClaimed, toStored } from '../../shared/event_batch_rows.ts'
import { toSafeIntegerOrNull } from '../../shared/integers.ts'
import type { Statements } from '../statements.ts'

/** The adds of a newly appended event; an id in use refuses the append (the caller rolls back). */
export function addToBatches(
  s: Statements,
  adds: readonly EventBatchAdd[],
  event: EventRecord,
): EventBatchState[] {
  const open = new Map<string, StoredAccumulator>()
  for (const { workflow, key } of adds) {
    const row = s.selectOpenBatch.get(workflow, key) as unknown[] | undefined
    if (row !== undefined) open.set(slotOf(workflow, key), toStored(row))
  }
  const plan = planAdds(adds, event, open)
  for (const a of plan.opened)
    if (s.selectBatchId.get(a.workflow, a.key, a.id) !== undefined)
      throw new InvalidArgumentError(
        `appendEvent: accumulator id ${JSON.stringify(a.id)} of workflow "${a.workflow}" is in use`,
      )
  // Rewrites first: a full accumulator is closed before its successor opens (unique index).
  for (const a of plan.updated)
    s.updateBatch.run(a.mode, a.size, a.dueAt, a.open ? 1 : null, a.workflow, a.key, a.id)
  for (const a of plan.trimmed) s.trimBatchItems.run(a.workflow, a.key, a.id)
  for (const a of plan.opened)
    s.insertBatch.run(a.workflow, a.key, a.id, a.mode, a.firstAt, a.dueAt, a.size)
  for (const i of plan.items)
    s.putBatchItem.run(i.workflow, i.key, i.batchId, i.itemNo, i.eventId, i.payload)
  return plan.states
}

/** When an accumulator of `workflows` can next be claimed (one read; null when there is none). */
export function nextBatchAt(s: Statements, workflows: readonly string[]): number | null {
  const names = JSON.stringify(workflows)
  const row = s.nextBatchAt.get(names, names) as unknown[] | undefined
  return earliest([
    toSafeIntegerOrNull(row?.[0] ?? null, 'due_at'),
    toSafeIntegerOrNull(row?.[1] ?? null, 'lease_until'),
  ])
}

/** The claim, in the caller's transaction: lease and close the due ones, read their payloads. */
export function claimBatches(
  s: Statements,
  request: ClaimEventBatchesRequest,
): ClaimedEventBatches {
  const { now, limit, owner, leaseMs, workflows } = request
  const rows = s.dueBatches.all(
    now,
    now,
    JSON.stringify(workflows),
    limit,
  ) as unknown as unknown[][]
  const due = rows.map((row) => toClaimed(row))
  for (const batch of due) {
    s.leaseBatch.run(owner, now + leaseMs, batch.workflow, batch.key, batch.id)
    readPayloads(s, batch)
  }
  return { claimed: due, nextAt: nextBatchAt(s, workflows) }
}

function readPayloads(s: Statements, batch: ClaimedEventBatch): void {
  const rows = s.batchItems.all(batch.workflow, batch.key, batch.id) as unknown as unknown[][]
  for (const [eventId, payload] of rows) {
    batch.eventIds.push(eventId as string)
    batch.payloads.push(payload as string)
  }
}

/** The accumulator and its payloads; true when there was one. */
export function deleteBatch(s: Statements, workflow: string, key: string, id: string): boolean {
  const deleted = Number(s.deleteBatch.run(workflow, key, id).changes) > 0
  s.deleteBatchItems.run(workflow, key, id)
  return deleted
}
