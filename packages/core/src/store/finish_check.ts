/**
 * A finish names a successor exactly when it continues as new. Every store refuses the
 * mismatch before applying anything (an engine bug a SQL statement would not notice).
 */
import type { StoreOp } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'

export function checkFinishOp(op: StoreOp): void {
  if (op.type !== 'finishRun') return
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
