/**
 * The stores `config/durable.ts` chooses from. Each is a config provider: nothing is opened,
 * and no driver is loaded, until the provider resolves the one `store` names at boot. Their
 * E_INVALID_ARGUMENT errors are restated by the provider under the store's key in `stores`.
 */
/// <reference types="@adonisjs/lucid/database_provider" />
import { mkdir } from 'node:fs/promises'
import { dirname } from 'node:path'
import { configProvider } from '@adonisjs/core'
import type { ApplicationService } from '@adonisjs/core/types'
import { InvalidArgumentError, type StateStore } from '@cairn/core'
import type { SqliteStoreOptions } from '@cairn/sql/sqlite'
import type { KnexStoreOptions } from '@cairn/sql/knex'
import { lucidTransactions } from './lucid_transactions.ts'
import type { StoreProvider } from './types.ts'

export interface LucidStoreOptions extends Omit<KnexStoreOptions, 'transactions'> {
  /** The Lucid connection (a key of config/database.ts `connections`). Default: Lucid's primary connection. */
  connection?: string
}

export const stores = {
  /**
   * The embedded store: a SQLite file through `node:sqlite` (`@cairn/sql/sqlite`), no server
   * and no Lucid needed. `path` is relative to the process's working directory; use
   * `app.tmpPath('durable.sqlite')` or `app.makePath(…)` for one inside the app. A missing
   * directory is created: an app's tmp/ is not in its repository, so a fresh clone lacks it.
   */
  sqlite(options: SqliteStoreOptions): StoreProvider {
    return configProvider.create(async (): Promise<StateStore> => {
      const { SqliteStore } = await import('@cairn/sql/sqlite')
      const store = new SqliteStore(options) // checks the options first
      // A directory that cannot be made is reported by the store's own open (E_STORE_FAILURE).
      if (options.path !== ':memory:')
        await mkdir(dirname(options.path), { recursive: true }).catch(() => {})
      return store
    })
  },

  /**
   * The app's own database through one of its Lucid connections: Cairn's tables live next to
   * the app's, on the connection's Knex instance (`@cairn/sql/knex`) — Postgres (`pg`),
   * MySQL/MariaDB (`mysql2`) or SQLite (`better-sqlite3`). Needs `@adonisjs/lucid`'s provider.
   * Closing the engine leaves the connection open: it is Lucid's. `ctx.transaction` hands
   * steps a Lucid TransactionClient on this connection (see docs/transactions.md).
   */
  lucid(options: LucidStoreOptions = {}): StoreProvider {
    return configProvider.create(async (app: ApplicationService): Promise<StateStore> => {
      const { connection, ...storeOptions } = options
      if (!app.container.hasBinding('lucid.db')) {
        throw new InvalidArgumentError(
          'needs the @adonisjs/lucid database provider in adonisrc.ts providers',
        )
      }
      const db = await app.container.make('lucid.db')
      const name = connection ?? db.primaryConnectionName
      if (!db.manager.has(name)) {
        const known = [...db.manager.connections.keys()].join(', ')
        throw new InvalidArgumentError(
          `connection ${JSON.stringify(name)} is not a Lucid connection (config/database.ts has: ${known})`,
        )
      }
      const { KnexStore } = await import('@cairn/sql/knex')
      const client = db.connection(name)
      // ctx.transaction opens its Lucid transaction on this same connection (lucid_transactions.ts).
      return new KnexStore(client.getWriteClient(), {
        ...storeOptions,
        transactions: lucidTransactions(client),
      })
    })
  },
}
