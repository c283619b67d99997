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
 */
import type { SqlResult, SqlStatement } from '../shared/driver.ts'
import type { MysqlPooledConnection } from './mysql_pool.ts'

const SQL_MODE = 'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION'

/**
 * The isolation variable is `tx_isolation` on MariaDB (10.x) and MySQL 5.7,
 * `transaction_isolation` on MySQL 8 (which dropped the old name): one SET of both settings,
 * with the name that works remembered after the first connection.
 */
const VARIANTS = ['tx_isolation', 'transaction_isolation'].map(
  (name) => `SET SESSION sql_mode = '${SQL_MODE}', SESSION ${name} = 'READ-COMMITTED'`,
)

/** ER_UNKNOWN_SYSTEM_VARIABLE */
const UNKNOWN_VARIABLE = 1193

export class SessionSetup {
  readonly #ready = new WeakSet<object>()
  #variant = 0

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
        await run({ text: VARIANTS[this.#variant] as string, values: [] })
        break
      } catch (error) {
        const errno = (error as { errno?: unknown }).errno
        if (errno !== UNKNOWN_VARIABLE || this.#variant + 1 >= VARIANTS.length) throw error
        this.#variant++
      }
    }
    this.#ready.add(connection.connection)
  }
}
