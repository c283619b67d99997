/**
 * Statements whose text depends on the call (how many workflow keys, which list filters),
 * prepared on first use and kept. Shapes repeat (an engine's runnable set rarely changes),
 * so the cache stays small; the bound only guards against unusual callers.
 */
import type { SqliteDatabase, SqliteStatement } from './database.ts'

const MAX_ENTRIES = 64

export class StatementCache {
  readonly #db: SqliteDatabase
  readonly #entries = new Map<string, SqliteStatement>()

  constructor(db: SqliteDatabase) {
    this.#db = db
  }

  /** The statement for `key`, built by `sql()` the first time; `arrays`: rows as arrays. */
  get(key: string, sql: () => string, arrays = false): SqliteStatement {
    const hit = this.#entries.get(key)
    if (hit !== undefined) return hit
    const statement = this.#db.prepare(sql())
    if (arrays) statement.setReturnArrays(true)
    if (this.#entries.size >= MAX_ENTRIES) this.#evictOldest()
    this.#entries.set(key, statement)
    return statement
  }

  #evictOldest(): void {
    const oldest = this.#entries.keys().next()
    if (!oldest.done) this.#entries.delete(oldest.value)
  }
}
