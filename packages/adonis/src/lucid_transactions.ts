/**
 * `ctx.transaction` with `stores.lucid`: the step receives a Lucid TransactionClient opened on
 * the store's own Lucid connection, so models and query builders write in the step's
 * transaction with `{ client: trx }` (or `trx.query()`, `useTransaction(trx)`), and Lucid's
 * `trx.after('commit')` hooks fire once the step's writes and checkpoint have committed. The
 * Knex transaction under it (`trx.knexClient`) is the one the checkpoint is written in.
 */
import type { QueryClientContract, TransactionClientContract } from '@adonisjs/lucid/types/database'
import type { TransactionOpener } from '@cairn/sql/knex'

export function lucidTransactions(
  connection: QueryClientContract,
): TransactionOpener<TransactionClientContract> {
  return {
    async begin() {
      const trx = await connection.transaction()
      return {
        handle: trx,
        knexTransaction: trx.knexClient,
        commit: () => trx.commit(),
        rollback: () => trx.rollback(),
      }
    },
  }
}

declare module '@cairn/core' {
  /** An AdonisJS app's `ctx.transaction` hands out a Lucid TransactionClient. */
  interface TransactionHandles {
    binding: TransactionClientContract
  }
}
