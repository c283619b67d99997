/** Requeueing a failed or dead run: one synchronous change, so atomic like every memory store call. */
import type { RequeueRequest, RequeueResult } from '../../contracts/index.ts'
import { checkRequeueRequest } from '../requeue_check.ts'
import { promoteQueued } from './run_ops.ts'
import { queuedWaitingOn } from '../admission_check.ts'
import type { StoreState } from './store_state.ts'

export function requeueRun(store: StoreState, request: RequeueRequest): RequeueResult {
  checkRequeueRequest(request)
  const state = store.runs.get(request.runId)
  if (state === undefined) return { status: 'not_found' }
  const run = state.run
  if ((run.status !== 'failed' && run.status !== 'dead') || run.leaseEpoch !== request.epoch)
    return { status: 'refused', current: { status: run.status, epoch: run.leaseEpoch } }
  const epoch = run.leaseEpoch + 1
  let positionsReset = 0
  for (const seq of request.resetSeqs) {
    if (state.checkpoints.get(seq)?.status !== 'failed') continue
    state.checkpoints.delete(seq)
    positionsReset += 1
  }
  // Its queue items held no slot while it had failed; left by an end that did not name their
  // queues, they would hold one again once it is pending: they go, and so do its unconsumed
  // grant messages (a replay takes a grant message as its slot).
  store.queues.forgetRun(state)
  const admission = run.admission
  if (admission !== null) promoteQueued(store, admission.scope, admission.key, request.now)
  const queued = admission !== null && store.admissions.reenter(state)
  store.change(
    state,
    {
      status: queued ? 'queued' : 'pending',
      error: null,
      finishedAt: null,
      availableAt: queued ? null : request.now,
      waitingOn: queued ? queuedWaitingOn(admission.key) : null,
      parkReason: null,
      leaseEpoch: epoch,
      recoveries: 0,
    },
    request.now,
  )
  return { status: 'applied', epoch, positionsReset, ...(queued ? { queued: true } : {}) }
}
