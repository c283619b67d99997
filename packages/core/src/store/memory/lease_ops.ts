/** Batch ops made under a lease: each is fenced, then moves the running run along. */
import type {
  FinishRunOp,
  OpResult,
  ParkRunOp,
  ReleaseRunOp,
  RenewLeaseOp,
  RunRecord,
  SuspendRunOp,
  Fence,
} from '../../contracts/index.ts'
import { freezeReason } from './copies.ts'
import { APPLIED, fencedResult, holdsLease } from './fence.ts'
import { notify } from './message_ops.ts'
import { grantFields } from './queues.ts'
import { promoteQueued } from './run_ops.ts'
import type { StoreState } from './store_state.ts'

function fencedChange(
  store: StoreState,
  fence: Fence,
  changes: (run: RunRecord) => Partial<RunRecord>,
  now: number,
): OpResult {
  const state = store.runs.get(fence.runId)
  if (!holdsLease(state, fence)) return fencedResult(state)
  store.change(state, changes(state.run), now)
  return APPLIED
}

export function suspendRun(store: StoreState, op: SuspendRunOp, now: number): OpResult {
  const result = fencedChange(
    store,
    op.fence,
    (run) => ({
      status: op.blocked === true ? 'blocked' : 'waiting',
      // A message accepted after the turn read the inbox: claimable at once (no lost wake-up).
      availableAt: run.inboxSeq > op.inboxSeen ? now : op.wakeAt,
      waitingOn: op.waitingOn,
      recoveries: 0,
    }),
    now,
  )
  if (result.status !== 'applied') return result
  const state = store.runs.get(op.fence.runId)
  if (state !== undefined) {
    state.wakeOn = op.wakeOn == null ? null : new Set(op.wakeOn)
    state.wakeEpoch = op.fence.epoch
  }
  for (const wait of op.eventWaits ?? []) store.events.register(op.fence.runId, wait)
  return { status: 'applied', availableAt: store.runs.get(op.fence.runId)?.run.availableAt ?? null }
}

export function releaseRun(store: StoreState, op: ReleaseRunOp, now: number): OpResult {
  return fencedChange(
    store,
    op.fence,
    () => ({ status: 'pending', availableAt: op.availableAt, recoveries: 0 }),
    now,
  )
}

export function finishRun(store: StoreState, op: FinishRunOp, now: number): OpResult {
  const result = fencedChange(
    store,
    op.fence,
    () => ({
      status: op.status,
      output: op.output,
      error: op.error,
      continuedTo: op.continuedTo ?? null,
      availableAt: null,
      finishedAt: now,
    }),
    now,
  )
  if (result.status === 'applied' && op.notify !== undefined) notify(store, op.notify, now)
  if (result.status === 'applied' && op.clearEventWaits === true)
    store.events.removeRun(op.fence.runId)
  if (result.status !== 'applied') return result
  const granted =
    op.releaseQueues === undefined
      ? {}
      : grantFields(store.queues.releaseRun(store, op.fence.runId, op.releaseQueues, now))
  const promoted =
    op.admission !== undefined &&
    promoteQueued(store, op.admission.scope, op.admission.key, now) > 0
  return { ...result, ...granted, ...(promoted ? { promoted: true } : {}) }
}

export function parkRun(store: StoreState, op: ParkRunOp, now: number): OpResult {
  return fencedChange(
    store,
    op.fence,
    () => ({ status: 'parked', parkReason: freezeReason(op.reason), availableAt: null }),
    now,
  )
}

export function renewLease(store: StoreState, op: RenewLeaseOp, now: number): OpResult {
  const progressed = op.progressed === true ? { recoveries: 0 } : {}
  return fencedChange(
    store,
    op.fence,
    () => ({ availableAt: now + op.leaseMs, ...progressed }),
    now,
  )
}
