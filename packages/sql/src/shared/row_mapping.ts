/**
 * Rows as the drivers return them (arrays, in select-list order) ↔ the records the engine
 * sees. Column lists live here, once; statements select them through `runColumns` and
 * `checkpointColumns` so the order always matches the mapping.
 */
import type {
  CheckpointKind,
  CheckpointRecord,
  CheckpointStatus,
  InboxMessage,
  MessageKind,
  ParkReason,
  RunRecord,
} from '@cairn/core/contracts'
import type { SqlType } from './dialect.ts'
import { toSafeInteger, toSafeIntegerOrNull } from './integers.ts'
import { readStatus } from './blocked_status.ts'
import { toStepWorker, workerText } from './worker_column.ts'
import { toOrigin, toTags } from './lineage_columns.ts'
import { toAdmission } from './admission_columns.ts'

/** Run columns, in the order toRunRecord reads them, with their types. */
export const RUN_COLUMNS: ReadonlyArray<readonly [name: string, type: SqlType]> = [
  ['id', 'text'],
  ['workflow', 'text'],
  ['version', 'text'],
  ['status', 'text'],
  ['input', 'text'],
  ['output', 'text'],
  ['error', 'text'],
  ['park_reason', 'text'],
  ['waiting_on', 'text'],
  ['created_at', 'bigint'],
  ['updated_at', 'bigint'],
  ['finished_at', 'bigint'],
  ['available_at', 'bigint'],
  ['lease_owner', 'text'],
  ['lease_epoch', 'bigint'],
  ['turns', 'bigint'],
  ['inbox_seq', 'bigint'],
  ['parent_run_id', 'text'],
  ['parent_seq', 'bigint'],
  ['continued_from', 'text'],
  ['continued_to', 'text'],
  ['tags', 'text'],
  ['origin_kind', 'text'],
  ['origin_run_id', 'text'],
  ['origin_from_seq', 'bigint'],
  // Read into `status` (blocked_status.ts), not a field of its own.
  ['blocked_epoch', 'bigint'],
  // RunRecord.admission (migration 12).
  ['admission_scope', 'text'],
  ['admission_key', 'text'],
  // RunRecord.priority (migration 13).
  ['priority', 'bigint'],
  // RunRecord.queue (migration 16).
  ['queue', 'text'],
  // RunRecord.recoveries (migration 18).
  ['recoveries', 'bigint'],
]

/**
 * Stored checkpoint columns after the run key, in the order toCheckpointRecord reads them
 * (after the run id, which is read through the run).
 */
export const CHECKPOINT_COLUMNS: ReadonlyArray<readonly [name: string, type: SqlType]> = [
  ['seq', 'bigint'],
  ['name', 'text'],
  ['kind', 'text'],
  ['status', 'text'],
  ['attempts', 'bigint'],
  ['delivery_order', 'bigint'],
  ['input', 'text'],
  ['output', 'text'],
  ['error', 'text'],
  ['wake_at', 'bigint'],
  ['started_at', 'bigint'],
  ['updated_at', 'bigint'],
  // CheckpointRecord.worker as JSON text (worker_column.ts; migration 11).
  ['worker', 'text'],
]

/** Values of a checkpoint in CHECKPOINT_COLUMNS order (the run is bound apart). */
export function checkpointValues(cp: CheckpointRecord) {
  return [
    cp.seq,
    cp.name,
    cp.kind,
    cp.status,
    cp.attempts,
    cp.order,
    cp.input,
    cp.output,
    cp.error,
    cp.wakeAt,
    cp.startedAt,
    cp.updatedAt,
    workerText(cp.worker),
  ] as const
}

/** Stored message columns read back, after the run id (read through the run), in toInboxMessage order. */
const MESSAGE_COLUMNS = ['seq', 'kind', 'name', 'dedupe_id', 'payload', 'accepted_at'] as const

/** `alias.id, alias.workflow, …` in RUN_COLUMNS order. */
export function runColumns(alias: string): string {
  return RUN_COLUMNS.map(([name]) => `${alias}.${name}`).join(', ')
}

/** A checkpoint as read: the run id (`runAlias.id`), then CHECKPOINT_COLUMNS of `alias`. */
export function checkpointColumns(runAlias: string, alias: string): string {
  return [`${runAlias}.id`, ...CHECKPOINT_COLUMNS.map(([name]) => `${alias}.${name}`)].join(', ')
}

/** A message as read: the run id (`runAlias.id`), then MESSAGE_COLUMNS of `alias`. */
export function messageColumns(runAlias: string, alias: string): string {
  return [`${runAlias}.id`, ...MESSAGE_COLUMNS.map((name) => `${alias}.${name}`)].join(', ')
}

/** The run whose columns start at `at` in `row`. */
export function toRunRecord(row: readonly unknown[], at = 0): RunRecord {
  const text = (i: number) => row[at + i] as string
  const nullableText = (i: number) => row[at + i] as string | null
  const int = (i: number) => toSafeInteger(row[at + i], RUN_COLUMNS[i]?.[0] ?? '?')
  const nullableInt = (i: number) => toSafeIntegerOrNull(row[at + i], RUN_COLUMNS[i]?.[0] ?? '?')
  const parkReason = nullableText(7)
  return {
    id: text(0),
    workflow: text(1),
    version: text(2),
    status: readStatus(text(3), int(14), row[at + 25]),
    input: text(4),
    output: nullableText(5),
    error: nullableText(6),
    parkReason: parkReason === null ? null : (JSON.parse(parkReason) as ParkReason),
    waitingOn: nullableText(8),
    createdAt: int(9),
    updatedAt: int(10),
    finishedAt: nullableInt(11),
    availableAt: nullableInt(12),
    leaseOwner: nullableText(13),
    leaseEpoch: int(14),
    turns: int(15),
    inboxSeq: int(16),
    parentRunId: nullableText(17),
    parentSeq: nullableInt(18),
    continuedFrom: nullableText(19),
    continuedTo: nullableText(20),
    tags: toTags(row[at + 21]),
    origin: toOrigin(row[at + 22], row[at + 23], nullableInt(24)),
    admission: toAdmission(row[at + 26], row[at + 27]),
    priority: int(28),
    queue: nullableText(29),
    recoveries: int(30),
  }
}

/** The checkpoint whose columns (run id first) start at `at` in `row`. */
export function toCheckpointRecord(row: readonly unknown[], at = 0): CheckpointRecord {
  const nullableText = (i: number) => row[at + i] as string | null
  const column = (i: number) => CHECKPOINT_COLUMNS[i - 1]?.[0] ?? '?'
  const int = (i: number) => toSafeInteger(row[at + i], column(i))
  const nullableInt = (i: number) => toSafeIntegerOrNull(row[at + i], column(i))
  return {
    runId: row[at] as string,
    seq: int(1),
    name: row[at + 2] as string,
    kind: row[at + 3] as CheckpointKind,
    status: row[at + 4] as CheckpointStatus,
    attempts: int(5),
    order: nullableInt(6),
    input: nullableText(7),
    output: nullableText(8),
    error: nullableText(9),
    wakeAt: nullableInt(10),
    startedAt: int(11),
    updatedAt: int(12),
    worker: toStepWorker(row[at + 13]),
  }
}

/** A message row read with messageColumns. */
export function toInboxMessage(row: readonly unknown[]): InboxMessage {
  return {
    runId: row[0] as string,
    seq: toSafeInteger(row[1], 'seq'),
    kind: row[2] as MessageKind,
    name: row[3] as string,
    dedupeId: row[4] as string | null,
    payload: row[5] as string,
    acceptedAt: toSafeInteger(row[6], 'accepted_at'),
  }
}
