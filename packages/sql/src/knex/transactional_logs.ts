/**
 * A transactional step's lines (TransactionalSave.logs), merged into its position's log record
 * in the application's Knex transaction, after its checkpoint: they commit with it or not at
 * all. The run row is already locked by the checkpoint's write (transactional_checkpoint.ts),
 * so a deleteRunTrees cannot remove the run under it. Same steps as the batch writers
 * (shared/step_log_rows.ts), through Knex's query builder: an empty record inserted where the
 * position has none (a duplicate ignored), the row read FOR UPDATE (SQLite: the transaction's
 * write lock), merged by store-kit's mergeStepLogs, written back.
 */
import { emptyStepLogDocument, mergeStepLogs, parseStepLogDocument } from '@cairn/core/store-kit'
import type { StepLogAppend } from '@cairn/core/contracts'
import type { Knex } from 'knex'
import type { KnexDialect } from './dialect.ts'

export async function mergeTransactionalLogs(
  trx: Knex.Transaction,
  dialect: KnexDialect,
  table: string,
  runKey: number | string,
  logs: StepLogAppend,
  now: number,
): Promise<void> {
  const place = { run_key: runKey, seq: logs.seq }
  const empty = JSON.stringify(emptyStepLogDocument())
  await trx(table)
    .insert({ ...place, logs: empty, updated_at: now })
    .onConflict(['run_key', 'seq'])
    .ignore()
  const read = trx(table).where(place).first<{ logs: string } | undefined>('logs')
  const row = await (dialect === 'sqlite' ? read : read.forUpdate())
  const merged = mergeStepLogs(parseStepLogDocument(row?.logs ?? null), logs)
  await trx(table)
    .where(place)
    .update({ logs: JSON.stringify(merged), updated_at: now })
}
