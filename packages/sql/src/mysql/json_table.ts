/**
 * Rows bound as ONE JSON parameter (an array of arrays) and read by JSON_TABLE (MariaDB 10.6+,
 * MySQL 8.0.4+): one statement text for any row count, like Postgres' json_to_recordset. It
 * feeds eq_ref lookups of the run and checkpoint keys (checked with EXPLAIN) and measured a
 * little faster than a `SELECT ? … UNION ALL SELECT ?` derived table, which MariaDB
 * materializes. Integers travel as JSON numbers and are read exactly as BIGINT; text columns
 * are utf8mb4, so 4-byte characters pass, and a NUL arrives as written (`\u0000` in JSON).
 */
import { InvalidArgumentError } from '@cairn/core'
import type { SqlType } from '../shared/dialect.ts'
import { checkValue } from './statement_text.ts'

type Columns = ReadonlyArray<readonly [name: string, type: SqlType]>

const COLUMN_TYPES: Readonly<Record<SqlType, string>> = {
  text: 'LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin',
  bigint: 'BIGINT',
  int: 'BIGINT',
}

/** `JSON_TABLE(?, '$[*]' COLUMNS (…)) AS alias`: column i is element i of each row. */
export function jsonTableSql(placeholder: string, alias: string, columns: Columns): string {
  const definitions = columns.map(
    ([name, type], i) => `\`${name}\` ${COLUMN_TYPES[type]} PATH '$[${i}]'`,
  )
  return `JSON_TABLE(${placeholder}, '$[*]' COLUMNS (${definitions.join(', ')})) AS ${alias}`
}

/**
 * The JSON of `rows`, after the checks every bound value gets (statement_text.ts) and one
 * more: JSON_TABLE would read a string in an integer column as 0, not fail.
 */
export function jsonTableRows(columns: Columns, rows: readonly (readonly unknown[])[]): string {
  for (const row of rows) {
    for (let c = 0; c < columns.length; c++) {
      const value = row[c]
      checkValue(value)
      const [name, type] = columns[c] as Columns[number]
      if (type !== 'text' && typeof value === 'string') {
        throw new InvalidArgumentError(`mysql store: ${name} must be an integer, got a string`)
      }
    }
  }
  // undefined in an array becomes null, like NULL.
  return JSON.stringify(rows)
}
