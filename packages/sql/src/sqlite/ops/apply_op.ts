import { InvalidArgumentError } from '@cairn/core'
import type { OpResult, StoreOp } from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'
import { cancelRun } from './cancel_run.ts'
import { createRun } from './create_run.ts'
import { deliverMessage } from './deliver_message.ts'
import { finishRun, parkRun, releaseRun, renewLease, suspendRun } from './lease_ops.ts'
import { saveCheckpoint } from './save_checkpoint.ts'

/** Runs one batch op; call inside the batch transaction. */
export function applyOp(s: Statements, op: StoreOp, now: number): OpResult {
  switch (op.type) {
    case 'createRun':
      return createRun(s, op, now)
    case 'saveCheckpoint':
      return saveCheckpoint(s, op, now)
    case 'suspendRun':
      return suspendRun(s, op, now)
    case 'releaseRun':
      return releaseRun(s, op, now)
    case 'finishRun':
      return finishRun(s, op, now)
    case 'parkRun':
      return parkRun(s, op, now)
    case 'renewLease':
      return renewLease(s, op, now)
    case 'cancelRun':
      return cancelRun(s, op, now)
    case 'deliverMessage':
      return deliverMessage(s, op, now)
    default:
      throw new InvalidArgumentError(
        `applyBatch: unknown op type ${String((op as { type?: unknown }).type)}`,
      )
  }
}
