/**
 * Batch ops as rows of a multi-row statement: one column list per kind of write, and the
 * values of one op in that order. Everything an op writes that does not depend on the stored
 * row is computed here, in JavaScript, once for every dialect (the status a create starts in,
 * a lease expiry, a finish time), so the statements only match, fence and assign.
 */
import type { StoreOp } from '@cairn/core/contracts'
import type { SqlType } from './dialect.ts'

/**
 * The statement an op belongs to. `lease` covers every fenced write to the run row made by
 * the lease holder (suspend, release, finish, park, renew): one UPDATE assigns all of them.
 */
export type OpKind = 'create' | 'save' | 'lease' | 'cancel'

export const OP_KINDS: readonly OpKind[] = ['create', 'save', 'lease', 'cancel']

export function kindOf(op: StoreOp): OpKind {
  switch (op.type) {
    case 'createRun':
      return 'create'
    case 'saveCheckpoint':
      return 'save'
    case 'cancelRun':
      return 'cancel'
    default:
      return 'lease'
  }
}

/** The run an op touches. */
export function runIdOf(op: StoreOp): string {
  switch (op.type) {
    case 'createRun':
      return op.run.id
    case 'cancelRun':
      return op.runId
    default:
      return op.fence.runId
  }
}

type Columns = ReadonlyArray<readonly [name: string, type: SqlType]>

/** Source columns of each kind; `ord` is the op's index in the batch. */
export const SOURCE_COLUMNS: Readonly<Record<OpKind, Columns>> = {
  create: [
    ['ord', 'int'],
    ['id', 'text'],
    ['workflow', 'text'],
    ['version', 'text'],
    ['status', 'text'],
    ['input', 'text'],
    ['created_at', 'bigint'],
    ['available_at', 'bigint'],
    ['lease_owner', 'text'],
    ['epoch', 'bigint'],
  ],
  save: [
    ['ord', 'int'],
    ['run_id', 'text'],
    ['epoch', 'bigint'],
    ['seq', 'bigint'],
    ['name', 'text'],
    ['kind', 'text'],
    ['status', 'text'],
    ['attempts', 'bigint'],
    ['delivery_order', 'bigint'],
    ['output', 'text'],
    ['error', 'text'],
    ['wake_at', 'bigint'],
    ['started_at', 'bigint'],
    ['updated_at', 'bigint'],
  ],
  lease: [
    ['ord', 'int'],
    ['run_id', 'text'],
    ['epoch', 'bigint'],
    ['op', 'text'],
    ['status', 'text'],
    ['available_at', 'bigint'],
    ['waiting_on', 'text'],
    ['output', 'text'],
    ['error', 'text'],
    ['park_reason', 'text'],
    ['finished_at', 'bigint'],
  ],
  cancel: [
    ['ord', 'int'],
    ['run_id', 'text'],
    ['error', 'text'],
  ],
}

/** The values of `op` (at batch index `ord`) in SOURCE_COLUMNS order of its kind. */
export function sourceRow(op: StoreOp, ord: number, now: number): unknown[] {
  switch (op.type) {
    case 'createRun': {
      const { run } = op
      const leased = op.claim ?? null
      return [
        ord,
        run.id,
        run.workflow,
        run.version,
        leased ? 'running' : 'pending',
        run.input,
        run.createdAt,
        leased ? now + leased.leaseMs : run.createdAt,
        leased ? leased.owner : null,
        leased ? 1 : 0,
      ]
    }
    case 'saveCheckpoint': {
      const cp = op.checkpoint
      return [
        ord,
        op.fence.runId,
        op.fence.epoch,
        cp.seq,
        cp.name,
        cp.kind,
        cp.status,
        cp.attempts,
        cp.order,
        cp.output,
        cp.error,
        cp.wakeAt,
        cp.startedAt,
        cp.updatedAt,
      ]
    }
    case 'cancelRun':
      return [ord, op.runId, op.error]
    default:
      return [ord, op.fence.runId, op.fence.epoch, op.type, ...leaseTarget(op, now)]
  }
}

type LeaseOp = Exclude<StoreOp, { type: 'createRun' | 'saveCheckpoint' | 'cancelRun' }>

/** status, available_at, waiting_on, output, error, park_reason, finished_at of a lease write. */
function leaseTarget(op: LeaseOp, now: number): unknown[] {
  switch (op.type) {
    case 'suspendRun':
      return ['waiting', op.wakeAt, op.waitingOn, null, null, null, null]
    case 'releaseRun':
      return ['pending', op.availableAt, null, null, null, null, null]
    case 'finishRun':
      return [op.status, null, null, op.output, op.error, null, now]
    case 'parkRun':
      return ['parked', null, null, null, null, JSON.stringify(op.reason), null]
    case 'renewLease':
      return ['running', now + op.leaseMs, null, null, null, null, null]
  }
}

/** Columns of the run row only some lease writes assign; the others keep the stored value. */
const ASSIGNED_BY: ReadonlyArray<readonly [column: string, opType: StoreOp['type']]> = [
  ['waiting_on', 'suspendRun'],
  ['output', 'finishRun'],
  ['error', 'finishRun'],
  ['finished_at', 'finishRun'],
  ['park_reason', 'parkRun'],
]

/**
 * The SQL of the batch time in a SET list: a placeholder, or a function giving one per use
 * where placeholders cannot be repeated (MySQL's `?` binds one value per occurrence).
 */
export type NowSql = string | (() => string)

const nowText = (now: NowSql) => (typeof now === 'string' ? now : now())

/**
 * The SET list of the one UPDATE applying every lease write of a wave: `source` is the alias of
 * the op rows, `target` the run row's alias, `set` the prefix of assigned columns (Postgres
 * assigns bare column names, MySQL's multi-table UPDATE qualified ones).
 */
export function leaseAssignments(source: string, target: string, set: string, now: NowSql): string {
  const keepUnlessOp = ASSIGNED_BY.map(
    ([column, opType]) =>
      `${set}${column} = CASE WHEN ${source}.op = '${opType}' THEN ${source}.${column} ELSE ${target}.${column} END`,
  )
  return [
    `${set}status = ${source}.status`,
    `${set}available_at = ${source}.available_at`,
    ...keepUnlessOp,
    `${set}updated_at = ${nowText(now)}`,
  ].join(', ')
}

/** The SET list of a cancel: terminal, off the claim queue, and the epoch moved on (fencing the holder). */
export function cancelAssignments(
  source: string,
  target: string,
  set: string,
  now: NowSql,
): string {
  return [
    `${set}status = 'cancelled'`,
    `${set}error = ${source}.error`,
    `${set}available_at = NULL`,
    `${set}waiting_on = NULL`,
    `${set}park_reason = NULL`,
    `${set}lease_epoch = ${target}.lease_epoch + 1`,
    `${set}finished_at = ${nowText(now)}`,
    `${set}updated_at = ${nowText(now)}`,
  ].join(', ')
}

/** Statuses a cancel leaves alone. */
export const TERMINAL_STATUSES = `('completed', 'failed', 'cancelled')`

/** Checkpoint statuses a save may overwrite: a recorded outcome never changes (I1). */
export const OVERWRITABLE_CHECKPOINTS = `('retrying', 'waiting')`
