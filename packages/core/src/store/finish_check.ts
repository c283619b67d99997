/**
 * A finish names a successor exactly when it continues as new, and the admission key a finish
 * or a cancel names is well formed. Every store refuses a mismatch before applying anything
 * (an engine bug a SQL statement would not notice).
 */
import type { StoreOp } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { checkAdmissionKey } from './admission_check.ts'
import { checkQueueNames } from './queue_check.ts'

export function checkFinishOp(op: StoreOp): void {
  if (op.type === 'cancelRun') return checkNamedKey(op.admission, op.runId)
  if (op.type !== 'finishRun') return
  checkNamedKey(op.admission, op.fence.runId)
  if (op.releaseQueues !== undefined) checkQueueNames(op.releaseQueues, 'finishRun: releaseQueues')
  const continued = op.status === 'continued'
  const named = typeof op.continuedTo === 'string' && op.continuedTo.length > 0
  if (continued ? named : op.continuedTo === undefined) return
  throw new InvalidArgumentError(
    continued
      ? 'finishRun: status "continued" needs continuedTo (the successor run id)'
      : `finishRun: continuedTo is only for status "continued", got status "${op.status}"`,
    { details: { runId: op.fence.runId, status: op.status } },
  )
}

/** FinishRunOp.admission / CancelRunOp.admission: absent, or `{ scope, key }` as a create gives them. */
function checkNamedKey(value: unknown, runId: string): void {
  if (value === undefined) return
  const keys = typeof value === 'object' && value !== null ? Object.keys(value) : []
  if (keys.length !== 2 || !keys.includes('scope') || !keys.includes('key'))
    throw new InvalidArgumentError('admission names a key as { scope, key }', {
      details: { runId },
    })
  const { scope, key } = value as { scope: unknown; key: unknown }
  checkAdmissionKey(scope, 'admission scope', runId)
  checkAdmissionKey(key, 'admission key', runId)
}
