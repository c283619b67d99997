/**
 * The SQL text that differs between servers. Types only. Everything else (op dispatch, batch
 * planning, result building, row mapping, listing, maintenance, the migration runner) is
 * written once in this folder against these few pieces.
 */
import type { SqlStatement } from './driver.ts'
import type { Params } from './params.ts'

/** Column types the shared statements bind. */
export type SqlType = 'text' | 'bigint' | 'int'

export interface SqlDialect {
  /** For messages and error details: `postgres`, `mysql`. */
  readonly name: string
  /**
   * The placeholder of the n-th bound value (1-based): `$n` or `?`. `type` asks for an explicit
   * cast where the server cannot infer one (Postgres arrays: `$n::text[]`); `?` ignores it.
   */
  placeholder(n: number, type?: string): string
  /** A quoted identifier: `"name"` or `` `name` ``. */
  quoteIdent(name: string): string
  /**
   * `column` is one of `values` (never empty): Postgres binds the list as one array
   * (`= ANY($1::text[])`, one statement text for every length); MySQL `IN (?, ?, …)`.
   */
  inList(params: Params, column: string, values: readonly unknown[], type: SqlType): string
  /**
   * A derived table of `rows` (values in `columns` order) under `alias`, for multi-row
   * statements: Postgres `unnest($1::int[], $2::text[], …) AS alias(…)` (one array per column,
   * one statement text for any row count); MySQL a `SELECT ? AS …, … UNION ALL SELECT …`
   * derived table.
   */
  rowSource(
    params: Params,
    alias: string,
    columns: ReadonlyArray<readonly [name: string, type: SqlType]>,
    rows: readonly (readonly unknown[])[],
  ): string
  /**
   * UPDATE `table` (as `alias`) joined to `source` on `on`: Postgres `UPDATE … SET … FROM …
   * WHERE …`, MySQL `UPDATE … JOIN … ON … SET …`. `assignments(set)` writes the SET list with
   * `set` before each assigned column (Postgres assigns bare names, MySQL `alias.name`).
   */
  updateFrom(
    table: string,
    alias: string,
    source: string,
    on: string,
    assignments: (set: string) => string,
  ): string
  /**
   * Appended to an INSERT so a row whose key is taken is left as it is, without an error:
   * Postgres `ON CONFLICT DO NOTHING`, MySQL `ON DUPLICATE KEY UPDATE column = column`.
   */
  ignoreDuplicate(keyColumn: string): string
  /**
   * A bound double (search attribute numbers: any finite value, fractions included) or NULL:
   * Postgres `$n::float8`; MySQL `CAST(? AS DOUBLE)` of its shortest round-trip text (the
   * MySQL driver writes values into the text and admits only integers as numbers there).
   */
  double(params: Params, value: number | null): string
  /**
   * The end of an INSERT that replaces the row a unique key already holds: Postgres `ON
   * CONFLICT (keys) DO UPDATE SET c = EXCLUDED.c, …`, MySQL `ON DUPLICATE KEY UPDATE c =
   * VALUES(c), …`.
   */
  upsert(keys: readonly string[], columns: readonly string[]): string
  /** Clause of a read locking the rows it returns until commit: `FOR NO KEY UPDATE`, `FOR UPDATE`. */
  readonly lockRows: string
  /** The same, skipping rows another transaction holds (claims): `… SKIP LOCKED`. */
  readonly lockRowsSkipLocked: string
  /**
   * Clause of a read taking a shared lock on the rows it returns until commit, so they are not
   * deleted meanwhile: Postgres `FOR KEY SHARE` (waits only for a delete or a key change, not
   * for the batches' `FOR NO KEY UPDATE`), MySQL `LOCK IN SHARE MODE` (MariaDB and MySQL 8).
   */
  readonly lockRowsShared: string
  /**
   * After a table in FROM: make the planner read it through index `name` (MySQL `FORCE INDEX
   * (name)`, whose planner may prefer another index and walk it); '' where the planner picks
   * the right one on its own (Postgres, checked with EXPLAIN).
   */
  useIndex(name: string): string
  /** The text of a top-level string field of the JSON held in a TEXT column. */
  jsonField(column: string, field: string): string
  /** DDL creating the schema (Postgres) or database (MySQL) if it does not exist. */
  createSchema(schema: string): string
  /**
   * Serializes migrators across processes. `acquire` runs first in the migration session;
   * `release` (null for a lock that ends with the transaction) runs last, even after a failure.
   */
  migrationLock(schema: string): { acquire: SqlStatement; release: SqlStatement | null }
  /**
   * A statement taking a lock on each of `names` until the transaction ends, in an order fixed
   * for every caller (Postgres: transaction advisory locks on hashes of the names; a hash
   * shared by two names only makes them wait for each other), or null where the server has no
   * such locks (MySQL's GET_LOCK outlives the transaction) and callers rely on row locks.
   */
  lockNames(params: Params, names: readonly string[]): string | null
  /**
   * `column` (a text column) as an ORDER BY key in code point order: Postgres `column COLLATE
   * "C"` (names are TEXT in the database's collation); MySQL the column itself (VARBINARY).
   */
  byCodePoint(column: string): string
}
