import type { DeliverMessageOp, OpResult, RunStatus } from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'

const TERMINAL: ReadonlySet<string> = new Set(['completed', 'failed', 'cancelled'])

/**
 * Accept a message: read the run and any message holding the dedupe id, then count the
 * message on the run row and store it under the new seq. A read before the writes is safe
 * here: the batch runs under BEGIN IMMEDIATE, the only writer of the file.
 */
export function deliverMessage(s: Statements, op: DeliverMessageOp, now: number): OpResult {
  const { runId, kind, name, dedupeId, payload } = op.message
  const found = s.selectDelivery.get(dedupeId, runId) as Delivery | undefined
  if (found === undefined) return { status: 'not_found' }
  if (TERMINAL.has(found.status)) {
    return {
      status: 'terminal',
      current: { status: found.status as RunStatus, epoch: found.lease_epoch },
    }
  }
  if (found.seq !== null) return { status: 'delivered', seq: found.seq, duplicate: true }
  const { inbox_seq: seq } = s.countMessage.get(now, now, now, found.key) as { inbox_seq: number }
  s.insertMessage.run(found.key, seq, kind, name, dedupeId, payload, now)
  return { status: 'delivered', seq, duplicate: false }
}

interface Delivery {
  key: number
  status: string
  lease_epoch: number
  /** The seq of the message already holding the dedupe id, or null. */
  seq: number | null
}
