import { isTerminalStatus } from '@cairn/core'
import type { DeliverMessageOp, MessageToDeliver, OpResult, RunStatus } from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'

export function deliverMessage(s: Statements, op: DeliverMessageOp, now: number): OpResult {
  return deliver(s, op.message, now)
}

/**
 * The `notify` of a finish or cancel that applied: delivered by the same rules; a target run
 * that is gone or finished is skipped (the result is not the op's).
 */
export function notify(s: Statements, message: MessageToDeliver | undefined, now: number): void {
  if (message !== undefined) deliver(s, message, now)
}

/**
 * Accept a message: read the run and any message holding the dedupe id, then count the
 * message on the run row and store it under the new seq. A read before the writes is safe
 * here: the batch runs under BEGIN IMMEDIATE, the only writer of the file. A dedupe id
 * already accepted is answered with its receipt before the status is looked at: a resend
 * of an acknowledged message must not fail because the run has finished since.
 */
function deliver(s: Statements, message: MessageToDeliver, now: number): OpResult {
  const { runId, kind, name, dedupeId, payload } = message
  const found = s.selectDelivery.get(dedupeId, runId) as Delivery | undefined
  if (found === undefined) return { status: 'not_found' }
  if (found.seq !== null) return { status: 'delivered', seq: found.seq, duplicate: true }
  if (isTerminalStatus(found.status)) {
    return {
      status: 'terminal',
      current: { status: found.status as RunStatus, epoch: found.lease_epoch },
    }
  }
  const { inbox_seq: seq } = s.countMessage.get(name, now, now, now, found.key) as {
    inbox_seq: number
  }
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
