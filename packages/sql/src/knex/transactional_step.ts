/**
 * `StateStore.runTransactionalStep` for the Knex store: open the transaction (the opener's),
 * let the step write through its handle, write the checkpoint in the same transaction, commit.
 * Anything but an applied checkpoint rolls back: a fenced step's writes never commit, and a
 * step whose outcome is already recorded (an earlier commit reported lost) never writes twice.
 */
import { StoreFailureError } from '@cairn/core'
import type { Fence, TransactionalStepResult, TransactionalWork } from '@cairn/core/contracts'
import { failpoint } from '@cairn/core/internal/failpoints'
import { checkCheckpointLogs } from '@cairn/core/store-kit'
import type { Knex } from 'knex'
import type { KnexDialect } from './dialect.ts'
import {
  checkSameKnex,
  type OpenTransaction,
  type TransactionOpener,
} from './transaction_opener.ts'
import { saveTransactionalCheckpoint, type CheckpointTables } from './transactional_checkpoint.ts'

export interface TransactionalStepTarget {
  knex: Knex
  dialect: KnexDialect
  tables: CheckpointTables
  opener: TransactionOpener
}

export async function runTransactionalStep(
  target: TransactionalStepTarget,
  fence: Fence,
  work: TransactionalWork,
): Promise<TransactionalStepResult> {
  const open = await begin(target)
  let result: TransactionalStepResult
  try {
    checkSameKnex(target.knex, open)
    const save = await work(open.handle)
    if (save.logs !== undefined) checkCheckpointLogs(save)
    result = await storeStep('checkpoint', () =>
      saveTransactionalCheckpoint(open.knexTransaction, target.dialect, target.tables, fence, save),
    )
  } catch (error) {
    await rollBack(open)
    throw error
  }
  // P5 for a transactional step: the body ran and its checkpoint is written, not committed.
  failpoint('P5')
  if (result.status !== 'applied') await rollBack(open)
  // A failure here is "outcome unknown": the caller's retry meets `conflict` if it committed.
  else await storeStep('commit', () => open.commit())
  return result
}

function begin(target: TransactionalStepTarget): Promise<OpenTransaction> {
  return storeStep('begin', () => target.opener.begin())
}

/** Best effort: a rollback that fails leaves the connection to the pool's own checks. */
async function rollBack(open: OpenTransaction): Promise<void> {
  try {
    await open.rollback()
  } catch {
    // The transaction is not committed either way; the step's error says why it ended.
  }
}

async function storeStep<T>(operation: string, body: () => Promise<T>): Promise<T> {
  try {
    return await body()
  } catch (error) {
    throw new StoreFailureError(
      `knex store: transactional step ${operation} failed: ${String(error)}`,
      {
        cause: error,
        details: { operation: `runTransactionalStep.${operation}` },
      },
    )
  }
}
