/** Opening the connection and setting the PRAGMAs every connection needs (they are per connection). */
import { DatabaseSync } from 'node:sqlite'
import { StoreFailureError } from '@cairn/core'
import type { SqliteDatabase } from './database.ts'
import { BUSY_SLICE_MS } from './busy_retry.ts'
import { assertSqliteRuntime } from './runtime_support.ts'
import type { ResolvedSqliteOptions } from './options.ts'

export function openConnection(options: ResolvedSqliteOptions): DatabaseSync {
  assertSqliteRuntime()
  const db = new DatabaseSync(options.path, { enableForeignKeyConstraints: true })
  try {
    // First, so the PRAGMAs below already wait out a concurrent opener's lock.
    db.exec(`PRAGMA busy_timeout = ${Math.min(options.busyTimeoutMs, BUSY_SLICE_MS)}`)
    db.exec(`PRAGMA synchronous = ${options.synchronous.toUpperCase()}`)
    db.exec('PRAGMA foreign_keys = ON')
    return db
  } catch (err) {
    db.close()
    throw err
  }
}

/**
 * WAL: readers never block the writer nor each other, and a commit appends to one file.
 * Persistent in the file; on an already-WAL database this is a cheap read. ':memory:'
 * databases stay in 'memory' mode. Anything else (a file system without shared memory)
 * is refused: the durability and concurrency promises in docs/sqlite.md assume WAL.
 */
export function enableWal(db: SqliteDatabase, path: string): void {
  const row = db.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode: string } | undefined
  const mode = row?.journal_mode
  if (mode === 'wal' || (path === ':memory:' && mode === 'memory')) return
  throw new StoreFailureError(
    `sqlite store: could not enable WAL journal mode on ${path} (got ${mode})`,
    {
      details: { path, journalMode: mode },
    },
  )
}
