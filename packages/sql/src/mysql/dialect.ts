/** The MySQL/MariaDB spelling of the pieces shared SQL leaves to the dialect (shared/dialect.ts). */
import { createHash } from 'node:crypto'
import type { SqlDialect, SqlType } from '../shared/dialect.ts'
import type { Params } from '../shared/params.ts'
import { jsonTableRows, jsonTableSql } from './json_table.ts'

/**
 * How long open() waits for another process's migration. GET_LOCK has no "forever" on
 * MariaDB (a negative timeout returns NULL there); a day is as good.
 */
const MIGRATION_LOCK_WAIT_SECONDS = 86_400

/**
 * GET_LOCK names are server-wide and at most 64 characters: Cairn's prefix and a hash of the
 * database, so migrators of different databases do not wait for each other.
 */
export function migrationLockName(database: string): string {
  return `cairn_migrate_${createHash('sha1').update(database).digest('hex')}`
}

function quoteIdent(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``
}

function rowSource(
  params: Params,
  alias: string,
  columns: ReadonlyArray<readonly [name: string, type: SqlType]>,
  rows: readonly (readonly unknown[])[],
): string {
  return jsonTableSql(params.add(jsonTableRows(columns, rows)), alias, columns)
}

export const mysqlDialect: SqlDialect = {
  name: 'mysql',
  placeholder: () => '?',
  quoteIdent,
  inList: (params: Params, column: string, values: readonly unknown[]) =>
    `${column} IN (${values.map((value) => params.add(value)).join(', ')})`,
  rowSource,
  // A multi-table UPDATE assigns qualified columns. Each assignment reads only its own
  // column's old value, so MySQL's left-to-right evaluation of SET changes nothing.
  updateFrom: (table, alias, source, on, assignments) =>
    `UPDATE ${table} ${alias} JOIN ${source} ON ${on} SET ${assignments(`${alias}.`)}`,
  // Not INSERT IGNORE, which would also turn other errors (a too long value) into warnings.
  ignoreDuplicate: (column) => `ON DUPLICATE KEY UPDATE ${column} = ${column}`,
  // String(n) is the shortest text that reads back as exactly n; CAST parses it as a double.
  double: (params, value) =>
    value === null ? params.add(null) : `CAST(${params.add(String(value))} AS DOUBLE)`,
  // VALUES(c): understood by MariaDB and MySQL 8 alike (MySQL 8.0.20+ also has row aliases).
  upsert: (_keys, columns) =>
    `ON DUPLICATE KEY UPDATE ${columns.map((c) => `${c} = VALUES(${c})`).join(', ')}`,
  lockRows: 'FOR UPDATE',
  // MariaDB 10.6+, MySQL 8.0.1+.
  lockRowsSkipLocked: 'FOR UPDATE SKIP LOCKED',
  // Not FOR SHARE: MySQL 8 only.
  lockRowsShared: 'LOCK IN SHARE MODE',
  useIndex: (name) => `FORCE INDEX (${name})`,
  // BINARY: compared byte for byte, whatever the connection's collation.
  jsonField: (column, field) =>
    `CAST(JSON_VALUE(${column}, '$.${field.replaceAll("'", "''")}') AS BINARY)`,
  createSchema: (database) =>
    `CREATE DATABASE IF NOT EXISTS ${quoteIdent(database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`,
  // A session lock: released explicitly, or when the connection ends.
  migrationLock: (database) => ({
    acquire: {
      text: 'SELECT GET_LOCK(?, ?)',
      values: [migrationLockName(database), MIGRATION_LOCK_WAIT_SECONDS],
    },
    release: { text: 'SELECT RELEASE_LOCK(?)', values: [migrationLockName(database)] },
  }),
  // GET_LOCK locks belong to the session, not the transaction: the row locks do (see callers).
  lockNames: () => null,
  byCodePoint: (column) => column,
}
