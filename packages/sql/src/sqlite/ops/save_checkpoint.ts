import { InvalidArgumentError } from '@cairn/core'
import { checkUpsert } from '@cairn/core/store-kit'
import type { OpResult, SaveCheckpointOp } from '@cairn/core/contracts'
import { checkpointValues, toCheckpointRecord, type CheckpointRow } from '../row_mapping.ts'
import type { Statements } from '../statements.ts'
import { endEventWait } from './event_ops.ts'
import { fencedResult } from './fenced_result.ts'
import { grantFields, type QueuePass } from './queue_grants.ts'
import { enqueueItem, releaseItem } from './queue_items.ts'
import { writeAttributes } from './write_attributes.ts'
import { mergeStepLog } from '../step_logs.ts'

/**
 * One statement inserts or advances the row under the fence. When nothing changed, the
 * fence is checked first (a fenced writer learns it lost the lease), then the stored row is
 * returned as the conflict (the recorded outcome wins, I1).
 */
export function saveCheckpoint(s: Statements, op: SaveCheckpointOp, now: number): OpResult {
  const { fence, checkpoint } = op
  if (checkpoint.runId !== fence.runId) {
    throw new InvalidArgumentError(
      `saveCheckpoint: checkpoint of run ${checkpoint.runId} written under the fence of run ${fence.runId}`,
      { details: { runId: checkpoint.runId, fenceRunId: fence.runId } },
    )
  }
  if (op.searchAttributes !== undefined) checkUpsert(op.searchAttributes, 'saveCheckpoint')
  const { changes } = s.saveCheckpoint.run(
    ...checkpointValues(checkpoint),
    checkpoint.runId,
    fence.epoch,
  )
  if (Number(changes) > 0) {
    // Only a written checkpoint consumes its message: same transaction, never twice.
    if (op.consumes !== undefined) s.consumeMessage.run(now, fence.runId, op.consumes)
    endEventWait(s, op)
    if (op.searchAttributes !== undefined) writeAttributes(s, fence.runId, op.searchAttributes)
    if (op.logs !== undefined) mergeStepLog(s, op.logs, now)
    return applyQueueFields(s, op, now)
  }
  const fenced = fencedResult(s, fence.runId)
  if (fenced.status === 'fenced' && isWritable(fenced.current, fence.epoch)) {
    const row = s.selectCheckpoint.get(checkpoint.runId, checkpoint.seq) as unknown as CheckpointRow
    return { status: 'conflict', existing: toCheckpointRecord(row) }
  }
  return fenced
}

/**
 * A written save's queue fields (none: no statement): `granted` when its enqueue was granted,
 * `promoted` when a grant it made went to a suspended run, `throttled` when a queue's rate
 * stopped a grant of its release's pass or its enqueue's.
 */
function applyQueueFields(s: Statements, op: SaveCheckpointOp, now: number): OpResult {
  const { runId, seq } = op.checkpoint
  if (op.release === undefined && op.enqueue === undefined) return { status: 'applied' }
  const others: QueuePass =
    op.release === undefined
      ? { grants: [], throttled: [] }
      : releaseItem(s, op.release, runId, seq, now)
  let granted = false
  if (op.enqueue !== undefined) {
    const outcome = enqueueItem(s, runId, seq, op.enqueue, now)
    granted = outcome.granted
    others.grants.push(...outcome.others.grants)
    others.throttled.push(...outcome.others.throttled)
  }
  return { status: 'applied', ...grantFields(others), ...(granted ? { granted: true } : {}) }
}

/** Still leased at `epoch`, or cancelled at it (a late outcome): only a recorded row refused it. */
function isWritable(current: { status: string; epoch: number } | null, epoch: number): boolean {
  if (current === null || current.epoch !== epoch) return false
  return current.status === 'running' || current.status === 'cancelled'
}
