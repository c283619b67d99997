/**
 * How the Knex store opens the transaction of a transactional step (`ctx.transaction`). By
 * default a Knex transaction on the store's own Knex instance, handed to the step as it is; a
 * binding can hand out its own wrapper instead (@cairn/adonis: a Lucid TransactionClient, so
 * models work with `{ client: trx }` and Lucid's commit hooks fire), as long as the
 * transaction underneath runs on the store's Knex instance: the checkpoint is written on it.
 */
import { InvalidArgumentError, TransactionsUnsupportedError } from '@cairn/core'
import type { Knex } from 'knex'

/** An open transaction: what the step receives, and the Knex transaction underneath it. */
export interface OpenTransaction<Handle = unknown> {
  /** Given to the step's function. */
  handle: Handle
  /** The transaction the checkpoint is written in: the one `handle` writes in. */
  knexTransaction: Knex.Transaction
  commit(): Promise<unknown>
  rollback(): Promise<unknown>
}

export interface TransactionOpener<Handle = unknown> {
  /** Open a transaction on the store's Knex instance (same pool, same database). */
  begin(): Promise<OpenTransaction<Handle>>
}

/** The default: a plain Knex transaction, which is its own handle. */
export function knexTransactions(knex: Knex): TransactionOpener<Knex.Transaction> {
  return {
    async begin() {
      const trx = await knex.transaction()
      return {
        handle: trx,
        knexTransaction: trx,
        commit: () => trx.commit(),
        rollback: () => trx.rollback(),
      }
    },
  }
}

export function checkTransactionOpener(value: unknown): void {
  if (typeof (value as { begin?: unknown } | null)?.begin !== 'function') {
    throw new InvalidArgumentError(
      'knex store: transactions must be an object with a begin() method (see TransactionOpener)',
    )
  }
}

/**
 * The opened transaction must run on the store's Knex instance: a transaction of another
 * connection would commit the app's writes and the checkpoint separately, which is exactly
 * what a transactional step promises not to do. Knex's transaction clients share their
 * instance's config object, which identifies the instance.
 */
export function checkSameKnex(knex: Knex, opened: OpenTransaction): void {
  const config = (opened.knexTransaction as { client?: { config?: unknown } } | null)?.client
    ?.config
  if (config !== knex.client.config) {
    throw new TransactionsUnsupportedError(
      'knex store: the transaction opener returned a transaction of another Knex instance (another connection); ctx.transaction needs one on the connection the store writes to',
    )
  }
}

declare module '@cairn/core' {
  /** `ctx.transaction` on a Knex store hands out a Knex transaction (unless a binding's wins). */
  interface TransactionHandles {
    store: Knex.Transaction
  }
}
