/** Batch ops that need no lease: creating and cancelling runs. */
import type { CancelRunOp, CreateRunOp, OpResult, RunRecord } from '../../contracts/index.ts'
import { copyCheckpoint, copyRun } from './copies.ts'
import { APPLIED } from './fence.ts'
import { notify } from './message_ops.ts'
import { isTerminal } from './run_state.ts'
import type { StoreState } from './store_state.ts'

export function createRun(store: StoreState, op: CreateRunOp, now: number): OpResult {
  const existing = store.runs.get(op.run.id)
  if (existing !== undefined) return { status: 'exists', run: copyRun(existing.run) }
  const run = newRunRecord(op, now)
  const state = store.addRun(run)
  for (const checkpoint of op.seed ?? [])
    state.checkpoints.set(checkpoint.seq, copyCheckpoint(checkpoint))
  return { status: 'applied', epoch: run.leaseEpoch }
}

function newRunRecord(op: CreateRunOp, now: number): RunRecord {
  const { id, workflow, version, input, createdAt } = op.run
  const claim = op.claim
  return {
    id,
    workflow,
    version,
    status: claim ? 'running' : 'pending',
    input,
    output: null,
    error: null,
    parkReason: null,
    waitingOn: null,
    createdAt,
    updatedAt: createdAt,
    finishedAt: null,
    availableAt: claim ? now + claim.leaseMs : createdAt,
    leaseOwner: claim ? claim.owner : null,
    leaseEpoch: claim ? 1 : 0,
    turns: claim ? 1 : 0,
    inboxSeq: 0,
    parentRunId: op.run.parent?.runId ?? null,
    parentSeq: op.run.parent?.seq ?? null,
    continuedFrom: op.run.continuedFrom ?? null,
    continuedTo: null,
    tags: [...(op.run.tags ?? [])],
    origin: op.run.origin === undefined ? null : { ...op.run.origin },
  }
}

export function cancelRun(store: StoreState, op: CancelRunOp, now: number): OpResult {
  const state = store.runs.get(op.runId)
  if (state === undefined) return { status: 'not_found' }
  const run = state.run
  if (isTerminal(run.status)) {
    return { status: 'terminal', current: { status: run.status, epoch: run.leaseEpoch } }
  }
  store.change(
    state,
    {
      status: 'cancelled',
      error: op.error,
      availableAt: null,
      finishedAt: now,
      waitingOn: null,
      parkReason: null,
      // A new epoch fences the holder's in-flight writes whatever status they check.
      leaseEpoch: run.leaseEpoch + 1,
    },
    now,
  )
  if (op.notify !== undefined) notify(store, op.notify, now)
  return APPLIED
}
