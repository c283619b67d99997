import type { CancelRunOp, OpResult, RunStatus } from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'
import { notify } from './deliver_message.ts'
import { toAdmission } from '../../shared/admission_columns.ts'
import { promoteFreed } from './admission.ts'
import { grantFields } from './queue_grants.ts'
import { releaseRunEverywhere } from './queue_items.ts'

/**
 * Cancel unless terminal; RETURNING gives the new epoch without a second statement. A
 * cancel that applied delivers its `notify` (a cancelled child telling its parent) and takes
 * the run out of every queue it was in, whose next waiters are granted.
 */
export function cancelRun(s: Statements, op: CancelRunOp, now: number): OpResult {
  const updated = s.cancelRun.get(op.error, now, now, op.runId) as
    | {
        key: number
        lease_epoch: number
        admission_scope: string | null
        admission_key: string | null
      }
    | undefined
  if (updated !== undefined) {
    notify(s, op.notify, now)
    const granted = grantFields(releaseRunEverywhere(s, updated.key, now))
    const applied: OpResult = { status: 'applied', epoch: updated.lease_epoch, ...granted }
    return promoteFreed(
      s,
      toAdmission(updated.admission_scope, updated.admission_key),
      now,
      applied,
    )
  }
  const row = s.selectFence.get(op.runId) as { status: string; lease_epoch: number } | undefined
  if (row === undefined) return { status: 'not_found' }
  return {
    status: 'terminal',
    current: { status: row.status as RunStatus, epoch: row.lease_epoch },
  }
}
