/** Batch ops that need no lease: creating and cancelling runs. */
import type {
  Admission,
  CancelRunOp,
  CreateRunOp,
  OpResult,
  RunRecord,
} from '../../contracts/index.ts'
import type { AdmissionDecision } from './admissions.ts'
import { copyCheckpoint, copyRun } from './copies.ts'
import { APPLIED } from './fence.ts'
import { notify } from './message_ops.ts'
import { grantFields } from './queues.ts'
import { isTerminal } from './run_state.ts'
import { queuedWaitingOn } from '../admission_check.ts'
import { DEFAULT_PRIORITY } from '../run_priority.ts'
import type { StoreState } from './store_state.ts'

export function createRun(store: StoreState, op: CreateRunOp, now: number): OpResult {
  const existing = store.runs.get(op.run.id)
  if (existing !== undefined) return { status: 'exists', run: copyRun(existing.run) }
  const decision = decideAdmission(store, op, now)
  if (decision.kind === 'full') return decision.result
  const queued = decision.kind === 'queued'
  const run = newRunRecord(op, now)
  if (queued) Object.assign(run, queuedFields(op))
  const state = store.addRun(run)
  store.admissions.add(state, queued ? decision.seq : null)
  for (const checkpoint of op.seed ?? [])
    state.checkpoints.set(checkpoint.seq, copyCheckpoint(checkpoint))
  return queued
    ? { status: 'applied', epoch: 0, queued: true }
    : { status: 'applied', epoch: run.leaseEpoch }
}

function decideAdmission(store: StoreState, op: CreateRunOp, now: number): AdmissionDecision {
  const admission = op.admission
  if (admission === undefined) return { kind: 'admitted' }
  store.admissions.setLimit(admission.scope, admission.key, admission.limit)
  // A successor takes its predecessor's slot as it is: nothing to promote into, nothing to count.
  if (inherits(store, op.run.id, admission)) return { kind: 'admitted' }
  // The key's limit may have been raised: its waiters go first, in start order.
  promoteQueued(store, admission.scope, admission.key, now)
  return store.admissions.decide(admission)
}

/** The run named by `inheritFrom` holds the key: not terminal, or ended `continued` to `id`. */
function inherits(store: StoreState, id: string, admission: Admission): boolean {
  if (admission.inheritFrom === undefined) return false
  const run = store.runs.get(admission.inheritFrom)?.run
  if (run?.admission?.scope !== admission.scope || run.admission.key !== admission.key) return false
  return !isTerminal(run.status) || (run.status === 'continued' && run.continuedTo === id)
}

/** A queued run: created unclaimed and not claimable, waiting on its key. */
function queuedFields(op: CreateRunOp): Partial<RunRecord> {
  return {
    status: 'queued',
    availableAt: null,
    leaseOwner: null,
    leaseEpoch: 0,
    turns: 0,
    waitingOn: queuedWaitingOn(op.admission?.key ?? ''),
  }
}

/** Move the key's oldest queued runs into its free slots: pending, claimable at `now`. How many. */
export function promoteQueued(store: StoreState, scope: string, key: string, now: number): number {
  let promoted = 0
  for (const state of store.admissions.promotable(scope, key)) {
    store.admissions.dequeued(state)
    store.change(state, { status: 'pending', availableAt: now, waitingOn: null }, now)
    promoted++
  }
  return promoted
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
    recoveries: 0,
    inboxSeq: 0,
    parentRunId: op.run.parent?.runId ?? null,
    parentSeq: op.run.parent?.seq ?? null,
    continuedFrom: op.run.continuedFrom ?? null,
    continuedTo: null,
    priority: op.run.priority ?? DEFAULT_PRIORITY,
    queue: op.run.queue ?? null,
    tags: [...(op.run.tags ?? [])],
    origin: op.run.origin === undefined ? null : { ...op.run.origin },
    admission:
      op.admission === undefined ? null : { scope: op.admission.scope, key: op.admission.key },
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
  const granted = grantFields(store.queues.releaseRun(store, op.runId, null, now))
  // The slot (or queue place) went with the change; its waiters move up at once.
  const promoted =
    run.admission !== null && promoteQueued(store, run.admission.scope, run.admission.key, now) > 0
  if (!promoted && Object.keys(granted).length === 0) return APPLIED
  return { status: 'applied', ...granted, ...(promoted ? { promoted: true } : {}) }
}
