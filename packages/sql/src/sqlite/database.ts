/**
 * What the SQLite store uses of a connection. node:sqlite's DatabaseSync has exactly this
 * shape, so the store's own connection is used as it is (no wrapper on the hot path); a
 * better-sqlite3 Database borrowed from a Knex instance is adapted to it
 * (knex/better_sqlite_database.ts). Types only.
 */
import type { SQLInputValue, SQLOutputValue, StatementResultingChanges } from 'node:sqlite'

export interface SqliteStatement {
  run(...values: SQLInputValue[]): StatementResultingChanges
  /** The first row, undefined when none. An integer beyond 2^53 throws, never rounds. */
  get(...values: SQLInputValue[]): Record<string, SQLOutputValue> | undefined
  all(...values: SQLInputValue[]): Record<string, SQLOutputValue>[]
  /** Rows as arrays, columns in select-list order (row_mapping.ts). */
  setReturnArrays(enabled: boolean): void
}

export interface SqliteDatabase {
  prepare(sql: string): SqliteStatement
  exec(sql: string): void
  /** Inside an open transaction. */
  readonly isTransaction: boolean
}
