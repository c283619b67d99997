/** A connection with every fixed statement prepared: what each store call runs on. */
import { withBusyRetry } from './busy_retry.ts'
import { enableWal } from './connection.ts'
import type { SqliteDatabase } from './database.ts'
import { migrate } from './migrate.ts'
import { StatementCache } from './statement_cache.ts'
import { prepareStatements, type Statements } from './statements.ts'
import { prepareTransactionStatements } from './transaction.ts'

export interface PreparedConnection {
  db: SqliteDatabase
  s: Statements
  cache: StatementCache
}

/**
 * Opening: WAL, then the migrations, each waiting out other connections' locks (bounded by
 * `busyTimeoutMs`); the statements are prepared last, once their tables exist. `path` names
 * the database in errors (':memory:' may stay out of WAL).
 */
export async function setUpConnection(
  db: SqliteDatabase,
  path: string,
  busyTimeoutMs: number,
): Promise<PreparedConnection> {
  await withBusyRetry('open (journal mode)', busyTimeoutMs, () => enableWal(db, path))
  const tx = prepareTransactionStatements(db)
  await withBusyRetry('open (migrate)', busyTimeoutMs, () => migrate(db, tx))
  return { db, s: prepareStatements(db, tx), cache: new StatementCache(db) }
}

/** Another connection to a database already set up (a Knex pool may open several). */
export function prepareConnection(db: SqliteDatabase): PreparedConnection {
  const tx = prepareTransactionStatements(db)
  return { db, s: prepareStatements(db, tx), cache: new StatementCache(db) }
}
