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
import { fencedWrite } from './fenced_result.ts'

export function suspendRun(s: Statements, op: SuspendRunOp, now: number): OpResult {
  const { fence } = op
  const { changes } = s.suspendRun.run(op.wakeAt, op.waitingOn, now, fence.runId, fence.epoch)
  return fencedWrite(s, fence.runId, changes)
}

export function releaseRun(s: Statements, op: ReleaseRunOp, now: number): OpResult {
  const { fence } = op
  const { changes } = s.releaseRun.run(op.availableAt, now, fence.runId, fence.epoch)
  return fencedWrite(s, fence.runId, changes)
}

export function finishRun(s: Statements, op: FinishRunOp, now: number): OpResult {
  const { fence } = op
  const { changes } = s.finishRun.run(
    op.status,
    op.output,
    op.error,
    now,
    now,
    fence.runId,
    fence.epoch,
  )
  return fencedWrite(s, fence.runId, changes)
}

export function parkRun(s: Statements, op: ParkRunOp, now: number): OpResult {
  const { fence } = op
  const { changes } = s.parkRun.run(JSON.stringify(op.reason), now, fence.runId, fence.epoch)
  return fencedWrite(s, fence.runId, changes)
}

export function renewLease(s: Statements, op: RenewLeaseOp, now: number): OpResult {
  const { fence } = op
  const { changes } = s.renewLease.run(now + op.leaseMs, now, fence.runId, fence.epoch)
  return fencedWrite(s, fence.runId, changes)
}
