import type { OpResult, StoreOp } from '../../contracts/index.ts'
import { InvalidArgumentError } from '../../errors/index.ts'
import { checkUpsert } from '../../search/attribute_values.ts'
import { saveCheckpoint } from './checkpoint_ops.ts'
import { finishRun, parkRun, releaseRun, renewLease, suspendRun } from './lease_ops.ts'
import { deliverMessage } from './message_ops.ts'
import { cancelRun, createRun } from './run_ops.ts'
import { checkCreateOp } from '../create_check.ts'
import { checkFinishOp } from '../finish_check.ts'
import { checkCheckpointQueue } from '../queue_check.ts'
import { checkCheckpointLogs } from '../../step_logs/step_log_rules.ts'
import type { StoreState } from './store_state.ts'

/**
 * Apply ops in order. Nothing in between can observe a half-applied batch (the store is
 * synchronous inside), and the batch is checked before the first op so a malformed op
 * rejects it with nothing applied.
 */
export function applyBatch(store: StoreState, ops: readonly StoreOp[], now: number): OpResult[] {
  for (const op of ops) checkOp(op)
  const results = new Array<OpResult>(ops.length)
  for (let i = 0; i < ops.length; i++) results[i] = applyOp(store, ops[i] as StoreOp, now)
  return results
}

function applyOp(store: StoreState, op: StoreOp, now: number): OpResult {
  switch (op.type) {
    case 'saveCheckpoint':
      return saveCheckpoint(store, op, now)
    case 'createRun':
      return createRun(store, op, now)
    case 'suspendRun':
      return suspendRun(store, op, now)
    case 'releaseRun':
      return releaseRun(store, op, now)
    case 'finishRun':
      return finishRun(store, op, now)
    case 'parkRun':
      return parkRun(store, op, now)
    case 'renewLease':
      return renewLease(store, op, now)
    case 'cancelRun':
      return cancelRun(store, op, now)
    case 'deliverMessage':
      return deliverMessage(store, op, now)
  }
}

/** Engine bugs a SQL store might not notice; the reference store refuses them. */
function checkOp(op: StoreOp): void {
  if (op.type === 'saveCheckpoint') {
    if (op.checkpoint.runId !== op.fence.runId) {
      throw new InvalidArgumentError('saveCheckpoint: checkpoint.runId differs from fence.runId', {
        details: { runId: op.fence.runId, checkpointRunId: op.checkpoint.runId },
      })
    }
    if (op.searchAttributes !== undefined) checkUpsert(op.searchAttributes, 'saveCheckpoint')
    checkCheckpointQueue(op)
    checkCheckpointLogs(op)
  } else if (op.type === 'finishRun' || op.type === 'cancelRun') {
    checkFinishOp(op)
  } else if (op.type === 'createRun') {
    checkCreateOp(op)
  } else if (!KNOWN_OPS.has(op.type)) {
    throw new InvalidArgumentError(`unknown store op type: ${String(op.type)}`)
  }
}

const KNOWN_OPS: ReadonlySet<string> = new Set<StoreOp['type']>([
  'saveCheckpoint',
  'createRun',
  'suspendRun',
  'releaseRun',
  'finishRun',
  'parkRun',
  'renewLease',
  'cancelRun',
  'deliverMessage',
])
