/**
 * A better-sqlite3 Database (what Knex's `better-sqlite3` client lends) seen as the
 * connection the SQLite store runs on (sqlite/database.ts, node:sqlite's shape), reading
 * what node:sqlite reads:
 *
 * - Integers exactly. better-sqlite3 rounds an INTEGER beyond 2^53 to the nearest double by
 *   default; every statement here reads BigInts instead (per statement: the application's
 *   connection keeps its own default), turned back into numbers when exact, and a value
 *   beyond 2^53 throws node:sqlite's ERR_OUT_OF_RANGE error: a loud store failure, never a
 *   rounded time or epoch.
 * - Rows as arrays (`raw`) where the store asks for them.
 *
 * Text needs nothing: both bind and read UTF-8 with its length (a NUL round-trips) and write
 * a lone surrogate as U+FFFD.
 */
import type { SQLInputValue, SQLOutputValue, StatementResultingChanges } from 'node:sqlite'
import type { SqliteDatabase, SqliteStatement } from '../sqlite/database.ts'

/** The part of better-sqlite3's Database used here. */
export interface BetterSqlite3Database {
  prepare(sql: string): BetterSqlite3Statement
  exec(sql: string): unknown
  readonly inTransaction: boolean
  readonly memory: boolean
  readonly name: string
}

interface BetterSqlite3Statement {
  run(...values: SQLInputValue[]): StatementResultingChanges
  get(...values: SQLInputValue[]): unknown
  all(...values: SQLInputValue[]): unknown[]
  raw(enabled: boolean): unknown
  safeIntegers(enabled: boolean): unknown
}

type Row = Record<string, SQLOutputValue>

export class BetterSqliteDatabase implements SqliteDatabase {
  readonly #db: BetterSqlite3Database

  constructor(db: BetterSqlite3Database) {
    this.#db = db
  }

  /** The file, or ':memory:' for an in-memory database (which stays out of WAL). */
  get path(): string {
    return this.#db.memory ? ':memory:' : this.#db.name
  }

  get isTransaction(): boolean {
    return this.#db.inTransaction
  }

  prepare(sql: string): SqliteStatement {
    return new BetterSqliteStatement(this.#db.prepare(sql))
  }

  exec(sql: string): void {
    this.#db.exec(sql)
  }
}

class BetterSqliteStatement implements SqliteStatement {
  readonly #statement: BetterSqlite3Statement

  constructor(statement: BetterSqlite3Statement) {
    statement.safeIntegers(true)
    this.#statement = statement
  }

  run(...values: SQLInputValue[]): StatementResultingChanges {
    return this.#statement.run(...values)
  }

  get(...values: SQLInputValue[]): Row | undefined {
    const row = this.#statement.get(...values)
    return row === undefined ? undefined : exactRow(row)
  }

  all(...values: SQLInputValue[]): Row[] {
    return this.#statement.all(...values).map(exactRow)
  }

  setReturnArrays(enabled: boolean): void {
    this.#statement.raw(enabled)
  }
}

/** The row itself (a fresh object or array), its BigInts replaced by exact numbers. */
function exactRow(row: unknown): Row {
  const cells = row as Record<string, unknown>
  for (const key in cells) {
    const value = cells[key]
    if (typeof value === 'bigint') cells[key] = exactNumber(value)
  }
  return cells as Row
}

const MAX = BigInt(Number.MAX_SAFE_INTEGER)
const MIN = BigInt(Number.MIN_SAFE_INTEGER)

function exactNumber(value: bigint): number {
  if (value <= MAX && value >= MIN) return Number(value)
  throw Object.assign(
    new RangeError(`Value is too large to be represented as a JavaScript number: ${value}`),
    { code: 'ERR_OUT_OF_RANGE' },
  )
}
