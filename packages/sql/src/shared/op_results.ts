/**
 * OpResults from observations, written once for every dialect. The conditions mirror the
 * statements' WHERE clauses: an op that did not apply is explained by the state it met
 * (fenced, conflict, exists, terminal, not_found). When the observation lacks the stored row a
 * result must carry (the run a create met, the checkpoint a save met: writers do not return
 * them), the result is null and apply_batch.ts reads the row. The same function decides ops in
 * the portable writer: an op whose state explains no refusal applies.
 */
import { isTerminalStatus } from '@cairn/core'
import type { OpResult, StoreOp } from '@cairn/core/contracts'
import { noticeOf } from './op_columns.ts'
import type { Observation } from './wave_writer.ts'

const OVERWRITABLE: ReadonlySet<string> = new Set(['retrying', 'waiting'])

export function resultOf(op: StoreOp, seen: Observation): OpResult | null {
  if (seen.applied) return appliedResult(op, seen)
  switch (op.type) {
    case 'createRun':
      return seen.run === null ? null : { status: 'exists', run: seen.run }
    case 'saveCheckpoint':
      return saveResult(op.fence.epoch, seen)
    case 'cancelRun':
    case 'deliverMessage':
      return refusedUnlessLive(seen)
    default:
      return leaseResult(op.fence.epoch, seen)
  }
}

type Applied = Extract<Observation, { applied: true }>

function appliedResult(op: StoreOp, seen: Applied): OpResult | null {
  switch (op.type) {
    case 'createRun':
      return { status: 'applied', epoch: op.claim ? 1 : 0 }
    case 'cancelRun':
      return seen.epoch === null ? null : { status: 'applied', epoch: seen.epoch }
    case 'suspendRun':
      return {
        status: 'applied',
        availableAt: seen.availableAt === undefined ? op.wakeAt : seen.availableAt,
      }
    case 'deliverMessage':
      return seen.delivered === undefined ? null : { status: 'delivered', ...seen.delivered }
    default:
      return { status: 'applied' }
  }
}

type NotApplied = Extract<Observation, { applied: false }>

function holdsLease(seen: NotApplied, epoch: number): boolean {
  return seen.fence !== null && seen.fence.status === 'running' && seen.fence.epoch === epoch
}

/**
 * Under the lease (or on a cancelled run at that epoch: a late outcome), only a recorded
 * outcome at that seq keeps a save from applying.
 */
function saveResult(epoch: number, seen: NotApplied): OpResult | null {
  const late = seen.fence?.status === 'cancelled' && seen.fence.epoch === epoch
  if (!holdsLease(seen, epoch) && !late) return { status: 'fenced', current: seen.fence }
  const existing = seen.checkpoint
  if (existing === null || OVERWRITABLE.has(existing.status)) return null
  return { status: 'conflict', existing }
}

function leaseResult(epoch: number, seen: NotApplied): OpResult | null {
  return holdsLease(seen, epoch) ? null : { status: 'fenced', current: seen.fence }
}

/** A cancel or a delivery needs a run that is not terminal; nothing else stops it. */
function refusedUnlessLive(seen: NotApplied): OpResult | null {
  if (seen.fence === null) return { status: 'not_found' }
  return isTerminalStatus(seen.fence.status) ? { status: 'terminal', current: seen.fence } : null
}

/** The `availableAt` an applied op made claimable by any engine, or null. */
export function wakeTime(op: StoreOp, result: OpResult, now: number): number | null {
  // A new message may have woken a waiting run (now); results do not say whether the run was
  // waiting, and a hint that wakes nobody costs a poll.
  if (result.status === 'delivered') return result.duplicate ? null : now
  if (result.status !== 'applied') return null
  // Likewise a notice (a child's outcome) may have woken its waiting parent.
  if (noticeOf(op) !== null) return now
  switch (op.type) {
    case 'createRun':
      return op.claim ? null : op.run.createdAt
    case 'releaseRun':
      return op.availableAt
    case 'suspendRun':
      return result.availableAt ?? null
    default:
      return null
  }
}
