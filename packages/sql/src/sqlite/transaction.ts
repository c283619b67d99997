/**
 * BEGIN IMMEDIATE … COMMIT around a synchronous body. IMMEDIATE takes the write lock up
 * front, so a read-then-write inside the body (claims, migrations) cannot be raced by another
 * process, and a busy database fails at BEGIN, where nothing has happened yet and a retry is
 * safe. SQLite calls are synchronous: nothing else in this process runs inside the body.
 */
import type { SqliteDatabase, SqliteStatement } from './database.ts'

export interface TransactionStatements {
  begin: SqliteStatement
  commit: SqliteStatement
  rollback: SqliteStatement
}

export function prepareTransactionStatements(db: SqliteDatabase): TransactionStatements {
  return {
    begin: db.prepare('BEGIN IMMEDIATE'),
    commit: db.prepare('COMMIT'),
    rollback: db.prepare('ROLLBACK'),
  }
}

/** Runs `body` in one write transaction; on any error it is rolled back and the error rethrown. */
export function inImmediateTransaction<T>(
  db: SqliteDatabase,
  tx: TransactionStatements,
  body: () => T,
): T {
  tx.begin.run()
  try {
    const result = body()
    tx.commit.run()
    return result
  } catch (err) {
    rollbackQuietly(db, tx)
    throw err
  }
}

/**
 * SQLite rolls some failures back by itself (SQLITE_FULL, SQLITE_IOERR during commit), so
 * only roll back what is still open; a failing ROLLBACK must not hide the original error.
 */
function rollbackQuietly(db: SqliteDatabase, tx: TransactionStatements): void {
  if (!db.isTransaction) return
  try {
    tx.rollback.run()
  } catch {
    // The original error is what the caller needs; SQLite discards the transaction anyway.
  }
}
