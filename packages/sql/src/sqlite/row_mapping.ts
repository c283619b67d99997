/**
 * Rows as SQLite returns them ↔ the records the engine sees. Column lists live here, once.
 * Run and checkpoint rows are read as arrays (`setReturnArrays`): node:sqlite builds a
 * 16-field object about twice as slowly as an array, and run reads are frequent (every
 * waitForRun poll, every claim, every list page).
 */
import type {
  CheckpointRecord,
  CheckpointKind,
  CheckpointStatus,
  InboxMessage,
  MessageKind,
  ParkReason,
  RunRecord,
} from '@cairn/core/contracts'
import { readStatus } from '../shared/blocked_status.ts'
import { toStepWorker } from '../shared/worker_column.ts'
import { toOrigin, toTags } from '../shared/lineage_columns.ts'
import { toAdmission } from '../shared/admission_columns.ts'
import { CHECKPOINT_COLUMNS as SHARED_CHECKPOINT_COLUMNS } from '../shared/row_mapping.ts'

/** Run columns, in RunRow order. */
export const RUN_COLUMNS =
  'id, workflow, version, status, input, output, error, park_reason, waiting_on, created_at, ' +
  'updated_at, finished_at, available_at, lease_owner, lease_epoch, turns, inbox_seq, ' +
  'parent_run_id, parent_seq, continued_from, continued_to, tags, origin_kind, origin_run_id, ' +
  'origin_from_seq, blocked_epoch, admission_scope, admission_key, priority, queue, recoveries'

const CHECKPOINT_NAMES = SHARED_CHECKPOINT_COLUMNS.map(([name]) => name)

/** Stored checkpoint columns after the run key, in the order of checkpointValues (shared). */
export const CHECKPOINT_COLUMNS = CHECKPOINT_NAMES.join(', ')

/** One `?` per checkpoint column. */
export const CHECKPOINT_PLACEHOLDERS = CHECKPOINT_NAMES.map(() => '?').join(', ')

/** An upsert's assignments: every column but the key's `seq` takes the incoming row's value. */
export const CHECKPOINT_OVERWRITE = CHECKPOINT_NAMES.filter((name) => name !== 'seq')
  .map((name) => `${name} = excluded.${name}`)
  .join(', ')

/** A checkpoint as read, in CheckpointRow order: `c` joined to its run `r` for the run's id. */
export const CHECKPOINT_SELECT = `r.id, ${CHECKPOINT_COLUMNS.split(', ')
  .map((column) => `c.${column}`)
  .join(', ')}`

export type RunRow = [
  id: string,
  workflow: string,
  version: string,
  status: string,
  input: string,
  output: string | null,
  error: string | null,
  parkReason: string | null,
  waitingOn: string | null,
  createdAt: number,
  updatedAt: number,
  finishedAt: number | null,
  availableAt: number | null,
  leaseOwner: string | null,
  leaseEpoch: number,
  turns: number,
  inboxSeq: number,
  parentRunId: string | null,
  parentSeq: number | null,
  continuedFrom: string | null,
  continuedTo: string | null,
  tags: string | null,
  originKind: string | null,
  originRunId: string | null,
  originFromSeq: number | null,
  blockedEpoch: number | null,
  admissionScope: string | null,
  admissionKey: string | null,
  priority: number,
  queue: string | null,
  recoveries: number,
]

/** A message as read: `m` joined to its run `r` for the run's id, in MessageRow order. */
export const MESSAGE_SELECT = 'r.id, m.seq, m.kind, m.name, m.dedupe_id, m.payload, m.accepted_at'

export type MessageRow = [
  runId: string,
  seq: number,
  kind: string,
  name: string,
  dedupeId: string | null,
  payload: string,
  acceptedAt: number,
]

export type CheckpointRow = [
  runId: string,
  seq: number,
  name: string,
  kind: string,
  status: string,
  attempts: number,
  order: number | null,
  input: string | null,
  output: string | null,
  error: string | null,
  wakeAt: number | null,
  startedAt: number,
  updatedAt: number,
  worker: string | null,
]

export function toRunRecord(row: RunRow): RunRecord {
  const [id, workflow, version, status, input, output, error, parkReason, waitingOn, ...rest] = row
  const [createdAt, updatedAt, finishedAt, availableAt, leaseOwner, leaseEpoch, turns, ...inbox] =
    rest
  const [inboxSeq, parentRunId, parentSeq, continuedFrom, continuedTo, ...lineage] = inbox
  const [tags, originKind, originRunId, originFromSeq, blockedEpoch, ...admission] = lineage
  const [admissionScope, admissionKey, priority, queue, recoveries] = admission
  return {
    id,
    workflow,
    version,
    status: readStatus(status, leaseEpoch, blockedEpoch),
    input,
    output,
    error,
    parkReason: parkReason === null ? null : (JSON.parse(parkReason) as ParkReason),
    waitingOn,
    createdAt,
    updatedAt,
    finishedAt,
    availableAt,
    leaseOwner,
    leaseEpoch,
    turns,
    inboxSeq,
    parentRunId,
    parentSeq,
    continuedFrom,
    continuedTo,
    tags: toTags(tags),
    origin: toOrigin(originKind, originRunId, originFromSeq),
    admission: toAdmission(admissionScope, admissionKey),
    priority,
    queue,
    recoveries,
  }
}

export function toCheckpointRecord(row: CheckpointRow): CheckpointRecord {
  const [runId, seq, name, kind, status, attempts, order, input, output, error, ...times] = row
  const [wakeAt, startedAt, updatedAt, worker] = times
  return {
    runId,
    seq,
    name,
    kind: kind as CheckpointKind,
    status: status as CheckpointStatus,
    attempts,
    order,
    input,
    output,
    error,
    wakeAt,
    startedAt,
    updatedAt,
    worker: toStepWorker(worker),
  }
}

/** Bind values of a checkpoint: CHECKPOINT_COLUMNS (the run id is bound apart, for its key). */
export { checkpointValues } from '../shared/row_mapping.ts'

export function toInboxMessage(row: MessageRow): InboxMessage {
  const [runId, seq, kind, name, dedupeId, payload, acceptedAt] = row
  return { runId, seq, kind: kind as MessageKind, name, dedupeId, payload, acceptedAt }
}
