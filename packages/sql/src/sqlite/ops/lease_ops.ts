/** Writes made by the lease holder: each one conditional UPDATE fenced by epoch and `running`. */
import type {
  FinishRunOp,
  OpResult,
  ParkRunOp,
  ReleaseRunOp,
  RenewLeaseOp,
  SuspendRunOp,
} from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'
import { promoteFreed } from './admission.ts'
import { wakeOnText } from '../../shared/wake_on.ts'
import { notify } from './deliver_message.ts'
import { clearEventWaits, registerEventWaits } from './event_ops.ts'
import { fencedResult, fencedWrite } from './fenced_result.ts'
import { grantFields } from './queue_grants.ts'
import { releaseRunIn } from './queue_items.ts'

/** The result carries the `availableAt` the write stored (now, when a message was not seen). */
export function suspendRun(s: Statements, op: SuspendRunOp, now: number): OpResult {
  const { fence } = op
  const stored = s.suspendRun.get(
    op.inboxSeen,
    now,
    op.wakeAt,
    op.waitingOn,
    wakeOnText(op.wakeOn),
    op.blocked === true ? 1 : 0,
    now,
    fence.runId,
    fence.epoch,
  ) as { available_at: number | null } | undefined
  if (stored === undefined) return fencedResult(s, fence.runId)
  registerEventWaits(s, op)
  return { status: 'applied', availableAt: stored.available_at }
}

export function releaseRun(s: Statements, op: ReleaseRunOp, now: number): OpResult {
  const { fence } = op
  const { changes } = s.releaseRun.run(op.availableAt, now, fence.runId, fence.epoch)
  return fencedWrite(s, fence.runId, changes)
}

/** A child's finish tells its parent (`notify`) in the same transaction, only if it applied. */
export function finishRun(s: Statements, op: FinishRunOp, now: number): OpResult {
  const { fence } = op
  const { changes } = s.finishRun.run(
    op.status,
    op.output,
    op.error,
    op.continuedTo ?? null,
    now,
    now,
    fence.runId,
    fence.epoch,
  )
  const result = fencedWrite(s, fence.runId, changes)
  if (result.status !== 'applied') return result
  notify(s, op.notify, now)
  clearEventWaits(s, op)
  const granted =
    op.releaseQueues === undefined
      ? {}
      : grantFields(releaseRunIn(s, fence.runId, op.releaseQueues, now))
  return promoteFreed(s, op.admission, now, { ...result, ...granted })
}

export function parkRun(s: Statements, op: ParkRunOp, now: number): OpResult {
  const { fence } = op
  const { changes } = s.parkRun.run(JSON.stringify(op.reason), now, fence.runId, fence.epoch)
  return fencedWrite(s, fence.runId, changes)
}

export function renewLease(s: Statements, op: RenewLeaseOp, now: number): OpResult {
  const { fence } = op
  const progressed = op.progressed === true ? 1 : 0
  const { changes } = s.renewLease.run(progressed, now + op.leaseMs, now, fence.runId, fence.epoch)
  return fencedWrite(s, fence.runId, changes)
}
