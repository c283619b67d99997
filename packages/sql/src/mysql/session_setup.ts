/**
 * Settings of the store's own connections, applied once per connection before its first
 * statement (one round trip; a pool handed in by the caller is left as it is):
 *
 * - READ COMMITTED. Every decision the store makes rests on locking reads (FOR UPDATE), which
 *   read the latest committed row at any isolation level, so REPEATABLE READ (the server
 *   default) would be just as correct. But at REPEATABLE READ a locking read of a run id that
 *   does not exist yet also locks the gap where it would go; run ids are time-ordered
 *   (UUIDv7), so every batch creating runs locks the same gap at the end of the id index, and
 *   two such batches deadlock on their inserts. READ COMMITTED takes no gap locks there.
 * - A fixed sql_mode: strict (a value that does not fit is an error, never truncated) and
 *   without NO_BACKSLASH_ESCAPES, which the client-side escaping relies on.
 * - On MariaDB, `idle_transaction_timeout` (options.ts `idleTransactionTimeoutS`): a process
 *   frozen inside a transaction loses its connection, and with it the row locks that would keep
 *   other engines from taking its runs over; when it resumes, its write fails and is fenced.
 */
import type { SqlResult, SqlStatement } from '../shared/driver.ts'
import type { MysqlPooledConnection } from './mysql_pool.ts'

const SQL_MODE = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'

/**
 * The isolation variable is `tx_isolation` on MariaDB (10.x) and MySQL 5.7,
 * `transaction_isolation` on MySQL 8 (which dropped the old name); only MariaDB has
 * `idle_transaction_timeout`. One SET per connection, in the first form the server accepts,
 * remembered after the first connection.
 */
function variants(idleTransactionTimeoutS: number): string[] {
  const base = (name: string) =>
    `SET SESSION sql_mode = '${SQL_MODE}', SESSION ${name} = 'READ-COMMITTED'`
  const idle =
    idleTransactionTimeoutS > 0
      ? [`${base('tx_isolation')}, SESSION idle_transaction_timeout = ${idleTransactionTimeoutS}`]
      : []
  return [...idle, base('tx_isolation'), base('transaction_isolation')]
}

/** ER_UNKNOWN_SYSTEM_VARIABLE */
const UNKNOWN_VARIABLE = 1193

export class SessionSetup {
  readonly #ready = new WeakSet<object>()
  readonly #variants: readonly string[]
  #variant = 0

  constructor(idleTransactionTimeoutS: number) {
    this.#variants = variants(idleTransactionTimeoutS)
  }

  isReady(connection: MysqlPooledConnection): boolean {
    return this.#ready.has(connection.connection)
  }

  /** Applies the settings through `run` (the driver, so the statement is counted). */
  async prepare(
    connection: MysqlPooledConnection,
    run: (statement: SqlStatement) => Promise<SqlResult>,
  ): Promise<void> {
    for (;;) {
      try {
        await run({ text: this.#variants[this.#variant] as string, values: [] })
        break
      } catch (error) {
        const errno = (error as { errno?: unknown }).errno
        if (errno !== UNKNOWN_VARIABLE || this.#variant + 1 >= this.#variants.length) throw error
        this.#variant++
      }
    }
    this.#ready.add(connection.connection)
  }
}
