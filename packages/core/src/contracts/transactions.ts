/**
 * Transactional steps (`ctx.transaction`): the store runs the step's function inside a database
 * transaction on the application's own connection and saves the step's checkpoint in that same
 * transaction, so the step's database writes and its recorded result commit together or not at
 * all. Types only.
 *
 * Only a store that shares a connection with the application can offer this (the Knex store,
 * and through it `stores.lucid`): a store with a connection of its own (memory, node:sqlite,
 * its own pg/mysql2 pool) has no transaction the application's writes could join, and omits
 * `StateStore.runTransactionalStep`. `ctx.transaction` then fails with
 * E_TRANSACTIONS_UNSUPPORTED.
 */
import type { CheckpointRecord } from './records.ts'
import type { OpResult } from './state_store.ts'
import type { StepLogAppend } from './step_logs.ts'

/**
 * The handle types packages give `ctx.transaction`'s function, merged by declaration
 * (`declare module '@cairn/core' { interface TransactionHandles { store: … } }`):
 * - `store`: what the store hands out (`@cairn/sql/knex`: a Knex transaction);
 * - `binding`: what a framework binding hands out instead (`@cairn/adonis`: a Lucid
 *   TransactionClient), preferred when present.
 * Empty here: core knows no database library.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by augmentation
export interface TransactionHandles {}

/** The handle `ctx.transaction` gives: the binding's, else the store's, else `unknown`. */
export type TransactionHandle = TransactionHandles extends { binding: infer H }
  ? H
  : TransactionHandles extends { store: infer H }
    ? H
    : unknown

/**
 * Called by the store inside the open transaction with the handle for the application's
 * writes. Resolves with what to save: the checkpoint (a `completed` outcome, its delivery
 * `order` set) and the lines the step logged, if any — merged into the position's log record
 * in the same transaction when the checkpoint applies (SaveCheckpointOp.logs' rules). Rejects
 * when the step failed: the store then rolls back and rejects with that error.
 */
export type TransactionalWork = (handle: unknown) => Promise<TransactionalSave>

/** What a transactional step's work asks the store to save (TransactionalWork). */
export interface TransactionalSave {
  checkpoint: CheckpointRecord
  logs?: StepLogAppend
}

/**
 * What a transactional step's transaction ended with:
 * - `applied`: committed — the application's writes and the checkpoint together;
 * - `fenced`: the lease moved on (another holder, a cancel, the run ended): rolled back;
 * - `conflict`: an outcome is already recorded at this position (an earlier attempt whose
 *   commit was reported lost, but did commit): rolled back, so the writes happen once.
 */
export type TransactionalStepResult = Extract<
  OpResult,
  { status: 'applied' } | { status: 'fenced' } | { status: 'conflict' }
>
