/**
 * The checkpoint of a transactional step, written inside the application's Knex transaction:
 * the saveCheckpoint rules (StateStore) on a `running` run, on all three dialects through
 * Knex's query builder (the batch writers run on the store's own connections and commit by
 * themselves; this write must not).
 *
 * Locks the run row (FOR UPDATE; on SQLite the transaction's write lock covers it): a claim or
 * cancel that would move the epoch waits for this commit, or has already committed and is seen
 * here (a locking read sees the latest commit at any isolation level), so the fence holds at
 * commit. Taken only now, after the application's writes, so a long transaction does not hold
 * up the run's lease renewals.
 */
import type {
  CheckpointRecord,
  Fence,
  RunStatus,
  TransactionalSave,
  TransactionalStepResult,
} from '@cairn/core/contracts'
import type { Knex } from 'knex'
import type { KnexDialect } from './dialect.ts'
import { toStepWorker, workerText } from '../shared/worker_column.ts'
import { mergeTransactionalLogs } from './transactional_logs.ts'

export interface CheckpointTables {
  runs: string
  checkpoints: string
  stepLogs: string
}

/** Table names as Knex takes them: `schema.table` is quoted part by part. */
export function checkpointTables(
  dialect: KnexDialect,
  place: string | undefined,
): CheckpointTables {
  const qualify = (table: string) => (place === undefined ? table : `${place}.${table}`)
  return {
    runs: qualify('cairn_runs'),
    checkpoints: qualify('cairn_checkpoints'),
    stepLogs: qualify('cairn_step_logs'),
  }
}

interface RunRow {
  key: number | string
  status: string
  lease_epoch: number | string
}

export async function saveTransactionalCheckpoint(
  trx: Knex.Transaction,
  dialect: KnexDialect,
  tables: CheckpointTables,
  fence: Fence,
  save: TransactionalSave,
): Promise<TransactionalStepResult> {
  const { checkpoint, logs } = save
  const run = await locked(
    dialect,
    trx(tables.runs).where('id', fence.runId).first<RunRow>('key', 'status', 'lease_epoch'),
  )
  if (run === undefined) return { status: 'fenced', current: null }
  const epoch = Number(run.lease_epoch)
  if (run.status !== 'running' || epoch !== fence.epoch) {
    return { status: 'fenced', current: { status: run.status as RunStatus, epoch } }
  }
  const place = { run_key: run.key, seq: checkpoint.seq }
  // A plain read: no other transaction writes this position while the run row is ours (a
  // stale holder is fenced), and a locking read of a missing row would take a gap lock on
  // MySQL at the application's REPEATABLE READ, holding up other runs' checkpoint inserts.
  const existing = await trx(tables.checkpoints).where(place).first<CheckpointRow>()
  if (existing !== undefined && (existing.status === 'completed' || existing.status === 'failed')) {
    return { status: 'conflict', existing: checkpointRecord(fence.runId, existing) }
  }
  const row = checkpointRow(checkpoint)
  if (existing === undefined) await trx(tables.checkpoints).insert({ ...place, ...row })
  else await trx(tables.checkpoints).where(place).update(row)
  if (logs !== undefined)
    await mergeTransactionalLogs(trx, dialect, tables.stepLogs, run.key, logs, checkpoint.updatedAt)
  return { status: 'applied' }
}

/** FOR UPDATE where the dialect has it (SQLite locks the whole database on the first write). */
function locked<Q extends Knex.QueryBuilder>(dialect: KnexDialect, query: Q): Q {
  return dialect === 'sqlite' ? query : (query.forUpdate() as Q)
}

interface CheckpointRow {
  seq: number | string
  name: string
  kind: string
  status: string
  attempts: number | string
  delivery_order: number | string | null
  input: string | null
  output: string | null
  error: string | null
  wake_at: number | string | null
  started_at: number | string
  updated_at: number | string
  worker: string | null
}

function checkpointRow(cp: CheckpointRecord): Omit<CheckpointRow, 'seq'> {
  return {
    name: cp.name,
    kind: cp.kind,
    status: cp.status,
    attempts: cp.attempts,
    delivery_order: cp.order,
    input: cp.input,
    output: cp.output,
    error: cp.error,
    wake_at: cp.wakeAt,
    started_at: cp.startedAt,
    updated_at: cp.updatedAt,
    worker: workerText(cp.worker),
  }
}

/** Postgres returns BIGINTs as strings: every integer column goes through Number. */
function checkpointRecord(runId: string, row: CheckpointRow): CheckpointRecord {
  const orNull = (value: number | string | null) => (value === null ? null : Number(value))
  return {
    runId,
    seq: Number(row.seq),
    name: row.name,
    kind: row.kind as CheckpointRecord['kind'],
    status: row.status as CheckpointRecord['status'],
    attempts: Number(row.attempts),
    order: orNull(row.delivery_order),
    input: row.input,
    output: row.output,
    error: row.error,
    wakeAt: orNull(row.wake_at),
    startedAt: Number(row.started_at),
    updatedAt: Number(row.updated_at),
    worker: toStepWorker(row.worker),
  }
}
