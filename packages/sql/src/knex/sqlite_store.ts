/**
 * The SQLite store on a Knex instance's better-sqlite3 connection (loaded only for such a
 * Knex). Knex lends SQLite connections one at a time (its pool has one by default), so the
 * store borrows it for each call and gives it back as soon as the call's synchronous
 * transaction is done: the application's queries and the store's take turns on it.
 *
 * The connection keeps the application's settings: its busy timeout (better-sqlite3's
 * default, 5 s, is waited out synchronously inside SQLite), `synchronous` (better-sqlite3
 * opens a WAL database at NORMAL) and foreign keys. open() switches the database to WAL, as
 * the store's own connection does (a setting of the file, kept).
 */
import { withBusyRetry } from '../sqlite/busy_retry.ts'
import { resolveBusyTimeout } from '../sqlite/options.ts'
import {
  prepareConnection,
  setUpConnection,
  type PreparedConnection,
} from '../sqlite/prepared_connection.ts'
import { storeFailure } from '../sqlite/sqlite_errors.ts'
import { SqliteStoreBase, closedError } from '../sqlite/sqlite_store_base.ts'
import { BetterSqliteDatabase, type BetterSqlite3Database } from './better_sqlite_database.ts'
import { giveBack, type KnexClient } from './knex_client.ts'
import type { KnexStoreOptions } from './options.ts'

export function knexSqliteStore(knex: KnexClient, options: KnexStoreOptions): KnexSqliteStore {
  return new KnexSqliteStore(knex, resolveBusyTimeout(options.busyTimeoutMs))
}

export class KnexSqliteStore extends SqliteStoreBase {
  readonly #knex: KnexClient
  readonly #busyTimeoutMs: number
  /** Prepared statements per connection Knex lends (it may replace one, or keep several). */
  readonly #prepared = new WeakMap<object, PreparedConnection>()
  #opened = false

  constructor(knex: KnexClient, busyTimeoutMs: number) {
    super()
    this.#knex = knex
    this.#busyTimeoutMs = busyTimeoutMs
  }

  protected async connect(): Promise<void> {
    await this.#borrow('open', async (connection) => {
      const db = new BetterSqliteDatabase(connection)
      this.#prepared.set(connection, await setUpConnection(db, db.path, this.#busyTimeoutMs))
    })
    this.#opened = true
  }

  /** The connection and the Knex instance are the application's: nothing to close. */
  protected disconnect(): Promise<void> {
    this.#opened = false
    return Promise.resolve()
  }

  protected async call<T>(operation: string, body: (c: PreparedConnection) => T): Promise<T> {
    if (this.closing || !this.#opened) throw closedError(operation)
    this.gate.enter()
    try {
      return await this.#borrow(operation, (connection) =>
        withBusyRetry(operation, this.#busyTimeoutMs, () => body(this.#preparedFor(connection))),
      )
    } finally {
      this.gate.leave()
    }
  }

  async #borrow<T>(
    operation: string,
    use: (connection: BetterSqlite3Database) => Promise<T>,
  ): Promise<T> {
    let connection: BetterSqlite3Database
    try {
      connection = (await this.#knex.acquireConnection()) as BetterSqlite3Database
    } catch (err) {
      throw storeFailure(operation, err)
    }
    try {
      return await use(connection)
    } finally {
      // A transaction left open (a ROLLBACK that failed) must not reach the application: the
      // connection is marked, and Knex closes it (which rolls back) instead of lending it.
      const stuck = connection.inTransaction ? new Error('left inside a transaction') : null
      giveBack(this.#knex, connection, stuck)
    }
  }

  #preparedFor(connection: BetterSqlite3Database): PreparedConnection {
    let prepared = this.#prepared.get(connection)
    if (prepared === undefined) {
      prepared = prepareConnection(new BetterSqliteDatabase(connection))
      this.#prepared.set(connection, prepared)
    }
    return prepared
  }
}
