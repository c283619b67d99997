/**
 * Times, names and record builders shared by the suite. Times start above 2^41 ms (year
 * 2039), like real timestamps, so a store that keeps 32-bit integers or seconds fails.
 */
import type {
  CheckpointRecord,
  NewRun,
  RunRecord,
  StoreOp,
  WorkflowKey,
} from '@cairn/core/contracts'

export const T0 = 2_200_000_000_000
export const LEASE_MS = 30_000
export const OWNER_A = 'engine-a'
export const OWNER_B = 'engine-b'

export const ORDERS_V1: WorkflowKey = { workflow: 'orders', version: 'v1' }
export const ORDERS_V2: WorkflowKey = { workflow: 'orders', version: 'v2' }
export const BILLING_V1: WorkflowKey = { workflow: 'billing', version: 'v1' }

export function newRun(
  id: string,
  options: { key?: WorkflowKey; createdAt?: number; input?: string } = {},
): NewRun {
  const { workflow, version } = options.key ?? ORDERS_V1
  const input = options.input ?? JSON.stringify({ id })
  return { id, workflow, version, input, createdAt: options.createdAt ?? T0 }
}

/**
 * The record `createRun` at `now` must store for `run` (leased when `claim` is given): its
 * times come from `run.createdAt`, a lease runs from `now`.
 */
export function createdRecord(
  run: NewRun,
  now: number,
  claim?: { owner: string; leaseMs: number },
): RunRecord {
  return {
    id: run.id,
    workflow: run.workflow,
    version: run.version,
    status: claim ? 'running' : 'pending',
    input: run.input,
    output: null,
    error: null,
    parkReason: null,
    waitingOn: null,
    createdAt: run.createdAt,
    updatedAt: run.createdAt,
    finishedAt: null,
    availableAt: claim ? now + claim.leaseMs : run.createdAt,
    leaseOwner: claim ? claim.owner : null,
    leaseEpoch: claim ? 1 : 0,
    turns: claim ? 1 : 0,
    recoveries: 0,
    inboxSeq: 0,
    parentRunId: run.parent?.runId ?? null,
    parentSeq: run.parent?.seq ?? null,
    continuedFrom: run.continuedFrom ?? null,
    continuedTo: null,
    tags: run.tags ?? [],
    origin: run.origin ?? null,
    admission: null,
    priority: run.priority ?? 0,
    queue: run.queue ?? null,
  }
}

export function checkpoint(
  runId: string,
  seq: number,
  changes: Partial<CheckpointRecord> = {},
): CheckpointRecord {
  return {
    runId,
    seq,
    name: `step-${seq}`,
    kind: 'local',
    status: 'completed',
    attempts: 1,
    order: seq + 1,
    input: null,
    output: JSON.stringify({ seq }),
    error: null,
    wakeAt: null,
    startedAt: T0,
    updatedAt: T0,
    worker: null,
    ...changes,
  }
}

export const NOT_REGISTERED = {
  code: 'E_WORKFLOW_NOT_REGISTERED',
  message: 'no engine runs this workflow version',
  details: { seen: ['v1'] },
}

export const NON_DETERMINISM = {
  code: 'E_NON_DETERMINISM',
  message: 'the code asked for another step at seq 3',
  details: { recorded: { seq: 3, name: 'charge', kind: 'local' }, attempted: null },
}

/** One op of every kind made under a lease, for tests that apply "each fenced op". */
export const FENCED_OPS: ReadonlyArray<{
  type: string
  op(runId: string, epoch: number): StoreOp
}> = [
  {
    type: 'saveCheckpoint',
    op: (runId, epoch) => ({
      type: 'saveCheckpoint',
      fence: { runId, epoch },
      checkpoint: checkpoint(runId, 0, { output: '"fenced write"' }),
    }),
  },
  {
    type: 'suspendRun',
    op: (runId, epoch) => ({
      type: 'suspendRun',
      fence: { runId, epoch },
      wakeAt: T0 + 5_000,
      waitingOn: 'sleep',
      inboxSeen: 0,
    }),
  },
  {
    type: 'releaseRun',
    op: (runId, epoch) => ({
      type: 'releaseRun',
      fence: { runId, epoch },
      availableAt: T0 + 5_000,
    }),
  },
  {
    type: 'finishRun',
    op: (runId, epoch) => ({
      type: 'finishRun',
      fence: { runId, epoch },
      status: 'completed',
      output: '"done"',
      error: null,
    }),
  },
  {
    type: 'parkRun',
    op: (runId, epoch) => ({ type: 'parkRun', fence: { runId, epoch }, reason: NON_DETERMINISM }),
  },
  {
    type: 'renewLease',
    op: (runId, epoch) => ({ type: 'renewLease', fence: { runId, epoch }, leaseMs: 99_000 }),
  },
]
