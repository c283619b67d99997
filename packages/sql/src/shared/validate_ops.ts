/**
 * Refusals before anything is sent: a batch with a bad op applies nothing
 * (E_INVALID_ARGUMENT), the same as in every other store.
 */
import { InvalidArgumentError } from '@cairn/core'
import {
  checkCheckpointQueue,
  checkCheckpointLogs,
  checkCreateOp,
  checkFinishOp,
  checkUpsert,
} from '@cairn/core/store-kit'
import type { StoreOp } from '@cairn/core/contracts'

const OP_TYPES: ReadonlySet<string> = new Set([
  'createRun',
  'saveCheckpoint',
  'suspendRun',
  'releaseRun',
  'finishRun',
  'parkRun',
  'renewLease',
  'cancelRun',
  'deliverMessage',
])

export function validateOps(ops: readonly StoreOp[]): void {
  for (const op of ops) {
    if (!OP_TYPES.has((op as { type?: unknown }).type as string)) {
      throw new InvalidArgumentError(
        `applyBatch: unknown op type ${String((op as { type?: unknown }).type)}`,
      )
    }
    checkFinishOp(op)
    checkCreateOp(op)
    if (op.type === 'saveCheckpoint' && op.checkpoint.runId !== op.fence.runId) {
      throw new InvalidArgumentError(
        `saveCheckpoint: checkpoint of run ${op.checkpoint.runId} written under the fence of run ${op.fence.runId}`,
        { details: { runId: op.checkpoint.runId, fenceRunId: op.fence.runId } },
      )
    }
    if (op.type === 'saveCheckpoint' && op.searchAttributes !== undefined) {
      checkUpsert(op.searchAttributes, 'saveCheckpoint')
    }
    if (op.type === 'saveCheckpoint') {
      checkCheckpointQueue(op)
      checkCheckpointLogs(op)
    }
  }
}
