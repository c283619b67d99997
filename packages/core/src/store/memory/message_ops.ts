/** deliverMessage: accept a message into a run's inbox (signals). */
import type { DeliverMessageOp, MessageToDeliver, OpResult } from '../../contracts/index.ts'
import { isTerminal } from './run_state.ts'
import type { StoreState } from './store_state.ts'

export function deliverMessage(store: StoreState, op: DeliverMessageOp, now: number): OpResult {
  return deliver(store, op.message, now)
}

/** A `notify` riding on another op: delivered by the same rules, skipped for a gone or finished run. */
export function notify(store: StoreState, message: MessageToDeliver, now: number): void {
  deliver(store, message, now)
}

function deliver(store: StoreState, message: MessageToDeliver, now: number): OpResult {
  const { runId, kind, name, dedupeId, payload } = message
  const state = store.runs.get(runId)
  if (state === undefined) return { status: 'not_found' }
  const run = state.run
  // A resend of an accepted message is answered with its receipt, even once the run has
  // finished: the caller retrying an acknowledged send must not see an error.
  const earlier = dedupeId === null ? undefined : state.dedupeIds.get(dedupeId)
  if (earlier !== undefined) return { status: 'delivered', seq: earlier, duplicate: true }
  if (isTerminal(run.status)) {
    return { status: 'terminal', current: { status: run.status, epoch: run.leaseEpoch } }
  }
  const seq = run.inboxSeq + 1
  state.inbox.push({ runId, seq, kind, name, dedupeId, payload, acceptedAt: now })
  if (dedupeId !== null) state.dedupeIds.set(dedupeId, seq)
  // Only a waiting (or blocked) run is woken here, and only by a message one of its waits can
  // take; a running one sees the message when it suspends.
  const wake =
    (run.status === 'waiting' || run.status === 'blocked') &&
    (state.wakeOn === null || state.wakeEpoch !== run.leaseEpoch || state.wakeOn.has(name)) &&
    (run.availableAt === null || run.availableAt > now)
  store.change(state, wake ? { inboxSeq: seq, availableAt: now } : { inboxSeq: seq }, now)
  return { status: 'delivered', seq, duplicate: false }
}
