/**
 * Batch ops as rows of a multi-row statement: one column list per kind of write, and the
 * values of one op in that order. Everything an op writes that does not depend on the stored
 * row is computed here, in JavaScript, once for every dialect (the status a create starts in,
 * a lease expiry, a finish time), so the statements only match, fence and assign.
 */
import { RUN_STATUSES, isTerminalStatus } from '@cairn/core'
import { DEFAULT_PRIORITY } from '@cairn/core/store-kit'
import type { MessageToDeliver, StoreOp } from '@cairn/core/contracts'
import type { SqlType } from './dialect.ts'
import { CHECKPOINT_COLUMNS, checkpointValues } from './row_mapping.ts'
import { wakeOnText } from './wake_on.ts'

/**
 * The statement an op belongs to. `lease` covers every fenced write to the run row made by
 * the lease holder (suspend, release, finish, park, renew): one UPDATE assigns all of them.
 * `deliver` accepts a message: the run row's inbox counter and a message row.
 */
export type OpKind = 'create' | 'save' | 'lease' | 'cancel' | 'deliver'

export const OP_KINDS: readonly OpKind[] = ['create', 'save', 'lease', 'cancel', 'deliver']

export function kindOf(op: StoreOp): OpKind {
  switch (op.type) {
    case 'createRun':
      return 'create'
    case 'saveCheckpoint':
      return 'save'
    case 'cancelRun':
      return 'cancel'
    case 'deliverMessage':
      return 'deliver'
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
    case 'deliverMessage':
      return op.message.runId
    default:
      return op.fence.runId
  }
}

type Columns = ReadonlyArray<readonly [name: string, type: SqlType]>

/**
 * A child run's parent link and a successor's predecessor (NULL for most runs): with the
 * priority, the singleton key and the queue, the trailing columns of a create, which a
 * statement creating none can leave out.
 */
const LINK_COLUMNS: readonly string[] = ['parent_run_id', 'parent_seq', 'continued_from']

/**
 * The create columns after the leading ones: the links, the priority, the singleton key, the
 * queue.
 */
export const TRAILING_CREATE_COLUMNS: readonly string[] = [
  ...LINK_COLUMNS,
  'priority',
  'admission_scope',
  'admission_key',
  'queue',
]

/** Whether a create writes a trailing column (TRAILING_CREATE_COLUMNS) other than NULL or 0. */
export function createsTrailing(op: StoreOp): boolean {
  return (
    createsLink(op) ||
    prioritized(op) ||
    (op.type === 'createRun' && (op.admission !== undefined || op.run.queue !== undefined))
  )
}

/** Whether a create writes a link column (LINK_COLUMNS). */
function createsLink(op: StoreOp): boolean {
  return (
    op.type === 'createRun' && (op.run.parent !== undefined || op.run.continuedFrom !== undefined)
  )
}

/** Whether a create sets a priority other than the column's default (0). */
function prioritized(op: StoreOp): boolean {
  return op.type === 'createRun' && (op.run.priority ?? DEFAULT_PRIORITY) !== DEFAULT_PRIORITY
}

/** The last column of a lease write: a continued finish's successor (NULL for the others). */
export const CONTINUED_COLUMN = 'continued_to'

/** Whether a lease write is a finish that continues as new (writes CONTINUED_COLUMN). */
export function continues(op: StoreOp): boolean {
  return op.type === 'finishRun' && op.continuedTo !== undefined
}

/**
 * The leading run columns a create writes, each with the source column (SOURCE_COLUMNS.create)
 * it takes its value from; the trailing ones (TRAILING_CREATE_COLUMNS) take their own.
 */
export const CREATE_TARGETS: ReadonlyArray<readonly [column: string, source: string]> = [
  ['id', 'id'],
  ['workflow', 'workflow'],
  ['version', 'version'],
  ['status', 'status'],
  ['input', 'input'],
  ['created_at', 'created_at'],
  ['updated_at', 'created_at'],
  ['available_at', 'available_at'],
  ['lease_owner', 'lease_owner'],
  ['lease_epoch', 'epoch'],
  ['turns', 'epoch'],
]

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
    ['parent_run_id', 'text'],
    ['parent_seq', 'bigint'],
    ['continued_from', 'text'],
    ['priority', 'bigint'],
    // The singleton key, written by the create itself (decided after the wave: admission_writes.ts).
    ['admission_scope', 'text'],
    ['admission_key', 'text'],
    // RunRecord.queue: the name as given, NULL for a run on no queue.
    ['queue', 'text'],
  ],
  save: [
    ['ord', 'int'],
    ['run_id', 'text'],
    ['epoch', 'bigint'],
    // The stored row as checkpointValues gives it (sourceRow), so the two cannot drift apart.
    ...CHECKPOINT_COLUMNS,
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
    // A suspend's inboxSeen (null for the other lease writes): see leaseAssignments.
    ['inbox_seen', 'bigint'],
    // A suspend's wakeOn and its epoch (wake_on.ts); the other lease writes keep the stored values.
    ['wake_on', 'text'],
    ['wake_epoch', 'bigint'],
    // A blocked suspend's epoch (migration 10: the run reads `blocked` while waiting at it).
    ['blocked_epoch', 'bigint'],
    // 0 for the writes that set RunRecord.recoveries to 0 (a suspend, a release, a renewal
    // reporting progress), null for the others: they keep the stored count.
    ['recoveries', 'int'],
    ['continued_to', 'text'],
  ],
  cancel: [
    ['ord', 'int'],
    ['run_id', 'text'],
    ['error', 'text'],
  ],
  deliver: [
    ['ord', 'int'],
    ['run_id', 'text'],
    ['kind', 'text'],
    ['name', 'text'],
    ['dedupe_id', 'text'],
    ['payload', 'text'],
  ],
}

/**
 * Source columns of the messages the wave's saves consume: the checkpoint (run and seq) and
 * the inbox seq it consumes. Apart from the save rows, so a wave without `consumes` (every
 * engine batch but a signal wait's) binds and runs exactly what it did before inboxes.
 */
export const CONSUME_COLUMNS: Columns = [
  ['run_id', 'text'],
  ['seq', 'bigint'],
  ['message', 'bigint'],
]

/** CONSUME_COLUMNS rows of the saves among `ops` that consume a message. */
export function consumeRows(ops: readonly StoreOp[]): unknown[][] {
  return ops.flatMap((op) =>
    op.type === 'saveCheckpoint' && op.consumes !== undefined
      ? [[op.fence.runId, op.checkpoint.seq, op.consumes]]
      : [],
  )
}

/**
 * The notice an op carries: the `notify` of a finish or cancel, the message that tells a
 * parent its child's outcome, delivered iff the op applies. null when there is none, and
 * for a notice to the op's own run: the op leaves that run terminal, and a terminal target
 * is skipped (a duplicate changes nothing either), so it can never be accepted; dropping it
 * keeps every run written at most once per wave.
 */
export function noticeOf(op: StoreOp): MessageToDeliver | null {
  if (op.type !== 'finishRun' && op.type !== 'cancelRun') return null
  const notice = op.notify
  return notice === undefined || notice.runId === runIdOf(op) ? null : notice
}

/**
 * A message in `deliver` SOURCE_COLUMNS order: a delivery's (`ord`: its batch index) or a
 * notice's (`ord`: the index of the op carrying it).
 */
export function messageRow(ord: number, message: MessageToDeliver): unknown[] {
  const { runId, kind, name, dedupeId, payload } = message
  return [ord, runId, kind, name, dedupeId, payload]
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
        run.parent?.runId ?? null,
        run.parent?.seq ?? null,
        run.continuedFrom ?? null,
        run.priority ?? DEFAULT_PRIORITY,
        op.admission?.scope ?? null,
        op.admission?.key ?? null,
        run.queue ?? null,
      ]
    }
    case 'saveCheckpoint':
      return [ord, op.fence.runId, op.fence.epoch, ...checkpointValues(op.checkpoint)]
    case 'cancelRun':
      return [ord, op.runId, op.error]
    case 'deliverMessage':
      return messageRow(ord, op.message)
    default:
      return [ord, op.fence.runId, op.fence.epoch, op.type, ...leaseTarget(op, now)]
  }
}

type LeaseOp = Exclude<
  StoreOp,
  { type: 'createRun' | 'saveCheckpoint' | 'cancelRun' | 'deliverMessage' }
>

/**
 * status, available_at, waiting_on, output, error, park_reason, finished_at, inbox_seen,
 * wake_on, wake_epoch, blocked_epoch, recoveries, continued_to of a lease write.
 */
function leaseTarget(op: LeaseOp, now: number): unknown[] {
  switch (op.type) {
    case 'suspendRun':
      return [
        'waiting',
        op.wakeAt,
        op.waitingOn,
        null,
        null,
        null,
        null,
        op.inboxSeen,
        wakeOnText(op.wakeOn),
        op.fence.epoch,
        op.blocked === true ? op.fence.epoch : null,
        0,
        null,
      ]
    case 'releaseRun':
      return [
        'pending',
        op.availableAt,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        0,
        null,
      ]
    case 'finishRun':
      return [
        op.status,
        null,
        null,
        op.output,
        op.error,
        null,
        now,
        null,
        null,
        null,
        null,
        null,
        op.continuedTo ?? null,
      ]
    case 'parkRun':
      return [
        'parked',
        null,
        null,
        null,
        null,
        JSON.stringify(op.reason),
        null,
        null,
        null,
        null,
        null,
        null,
        null,
      ]
    case 'renewLease':
      return [
        'running',
        now + op.leaseMs,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        null,
        op.progressed === true ? 0 : null,
        null,
      ]
  }
}

/** Columns of the run row only some lease writes assign; the others keep the stored value. */
const ASSIGNED_BY: ReadonlyArray<readonly [column: string, opType: StoreOp['type']]> = [
  ['waiting_on', 'suspendRun'],
  ['wake_on', 'suspendRun'],
  ['wake_epoch', 'suspendRun'],
  ['blocked_epoch', 'suspendRun'],
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
 * the op rows (or the SQL of each source column, for a single op written without a source
 * table: lone_write.ts), `target` the run row's alias, `set` the prefix of assigned columns
 * (Postgres assigns bare column names, MySQL's multi-table UPDATE qualified ones).
 */
export function leaseAssignments(
  source: string | ((column: string) => string),
  target: string,
  set: string,
  now: NowSql,
  /** The source has CONTINUED_COLUMN (a statement without a continued finish may omit it). */
  continued = true,
): string {
  // Called once per use, in text order: MySQL's `?` binds one value per occurrence.
  const from = typeof source === 'string' ? (column: string) => `${source}.${column}` : source
  const assigned = continued
    ? [...ASSIGNED_BY, [CONTINUED_COLUMN, 'finishRun'] as const]
    : ASSIGNED_BY
  const parts = [`${set}status = ${from('status')}`]
  // A suspend whose turn has not seen the run's latest message leaves it claimable now,
  // decided here, on the locked row, in the write itself: a message accepted concurrently
  // either committed first (counted in inbox_seq) or waits for this row and then wakes the
  // waiting run (no lost wake-up). Other lease writes have a NULL inbox_seen: never true.
  parts.push(
    `${set}available_at = CASE WHEN ${target}.inbox_seq > ${from('inbox_seen')} THEN ${nowText(now)} ELSE ${from('available_at')} END`,
  )
  for (const [column, opType] of assigned) {
    parts.push(
      `${set}${column} = CASE WHEN ${from('op')} = '${opType}' THEN ${from(column)} ELSE ${target}.${column} END`,
    )
  }
  // RunRecord.recoveries: set to 0 by the writes whose source says so, else kept.
  parts.push(`${set}recoveries = COALESCE(${from('recoveries')}, ${target}.recoveries)`)
  parts.push(`${set}updated_at = ${nowText(now)}`)
  return parts.join(', ')
}

/**
 * The SET list of a delivery: the next inbox seq (`added`: the SQL of how many messages the
 * run accepts at once, 1 for a delivery), and a waiting run claimable now unless it
 * already is sooner (`available_at = min(available_at, now)`, NULL counting as never) —
 * when `named` holds: the SQL saying one of the messages is one the run's `wake_on` names
 * (wake_on.ts). A pending, running or parked run keeps its `available_at`. Reads only
 * columns it does not assign, or its own, so MySQL's left-to-right SET gives the same as
 * Postgres.
 */
export function deliverAssignments(
  target: string,
  set: string,
  now: NowSql,
  added: string,
  named: string,
): string {
  const wakes = `${target}.status = 'waiting' AND (${named}) AND (${target}.available_at IS NULL OR ${target}.available_at > ${nowText(now)})`
  return [
    `${set}inbox_seq = ${target}.inbox_seq + ${added}`,
    `${set}available_at = CASE WHEN ${wakes} THEN ${nowText(now)} ELSE ${target}.available_at END`,
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

/**
 * The terminal statuses as an SQL list (completed, failed, cancelled, continued, dead): those a
 * cancel or a message leaves alone, whose queue items hold no slot. Built from core's list, so
 * a new terminal status cannot be missing from one statement.
 */
export const TERMINAL_STATUSES = `(${RUN_STATUSES.filter(isTerminalStatus)
  .map((status) => `'${status}'`)
  .join(', ')})`

/**
 * Run statuses a checkpoint save applies under, at the fence epoch: the lease holder's, and a
 * cancelled run's late outcome (a step in flight when the cancel moved the epoch, recorded
 * under the epoch the cancel left; never acted on).
 */
export const CHECKPOINT_WRITABLE = `('running', 'cancelled')`

/** Checkpoint statuses a save may overwrite: a recorded outcome never changes (I1). */
export const OVERWRITABLE_CHECKPOINTS = `('retrying', 'waiting')`
