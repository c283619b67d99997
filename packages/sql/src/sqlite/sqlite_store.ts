/**
 * StateStore on node:sqlite. One connection per store; every call is synchronous SQLite work
 * wrapped in a bounded, asynchronous busy retry. Writes run in BEGIN IMMEDIATE transactions:
 * within this process calls never interleave, and across processes the write lock serializes
 * them. See docs/sqlite.md.
 */
import type { DatabaseSync } from 'node:sqlite'
import { retryWhileBusy, withBusyRetry, type RetryBound } from './busy_retry.ts'
import { openConnection } from './connection.ts'
import { connectionOfStore } from './debug_access.ts'
import { resolveOptions, type ResolvedSqliteOptions, type SqliteStoreOptions } from './options.ts'
import { setUpConnection, type PreparedConnection } from './prepared_connection.ts'
import { isBusy, storeFailure } from './sqlite_errors.ts'
import { SqliteStoreBase, closedError } from './sqlite_store_base.ts'

export class SqliteStore extends SqliteStoreBase {
  readonly #options: ResolvedSqliteOptions
  #db: DatabaseSync | null = null
  #connection: PreparedConnection | null = null

  constructor(options: SqliteStoreOptions) {
    super()
    this.#options = resolveOptions(options)
  }

  protected async connect(): Promise<void> {
    const { busyTimeoutMs, path } = this.#options
    const db = await withBusyRetry('open', busyTimeoutMs, () => openConnection(this.#options))
    try {
      this.#connection = await setUpConnection(db, path, busyTimeoutMs)
      this.#db = db
      connectionOfStore.set(this, db)
    } catch (err) {
      db.close()
      throw err
    }
  }

  protected disconnect(): Promise<void> {
    this.#db?.close()
    this.#db = null
    this.#connection = null
    connectionOfStore.delete(this)
    return Promise.resolve()
  }

  /**
   * Runs `body` on the open connection. The first attempt runs synchronously: without
   * contention a call costs no extra promise hop. A busy database moves the call to the
   * asynchronous retry path, which close() waits for.
   */
  protected call<T>(operation: string, body: (c: PreparedConnection) => T): Promise<T> {
    const connection = this.#connection
    if (this.closing || connection === null) return Promise.reject(closedError(operation))
    const startedAt = Date.now()
    try {
      return Promise.resolve(body(connection))
    } catch (err) {
      if (!isBusy(err)) return Promise.reject(storeFailure(operation, err))
      return this.#retry(
        operation,
        { startedAt, boundMs: this.#options.busyTimeoutMs },
        () => body(connection),
        err,
      )
    }
  }

  async #retry<T>(
    operation: string,
    bound: RetryBound,
    attempt: () => T,
    firstError: unknown,
  ): Promise<T> {
    this.gate.enter()
    try {
      return await retryWhileBusy(operation, bound, attempt, firstError)
    } finally {
      this.gate.leave()
    }
  }
}

export function createSqliteStore(options: SqliteStoreOptions): SqliteStore {
  return new SqliteStore(options)
}
