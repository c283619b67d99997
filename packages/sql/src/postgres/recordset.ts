/**
 * Rows bound as ONE json parameter (an array of objects) and read by json_to_recordset: one
 * statement text for any row count. Measured against unnest over one array per column (the
 * usual idiom) at half the server time (0.16 against 0.31 ms for one row, 0.49 against 0.76
 * ms for 50) and less client CPU (no per-element array escaping in node-postgres).
 * `json`, not jsonb, keeps strings as sent; bigints travel as JSON number text and are parsed
 * exactly by the column type. A string JSON cannot carry into TEXT (one holding a raw NUL or a
 * lone surrogate) fails the statement rather than being altered: the codec never writes one.
 */
import { InvalidArgumentError } from '@cairn/core'
import type { SqlType } from '../shared/dialect.ts'

type Columns = ReadonlyArray<readonly [name: string, type: SqlType]>

/** `json_to_recordset($n::json) AS alias(name type, …)` */
export function recordsetSql(placeholder: string, alias: string, columns: Columns): string {
  const definition = columns.map(([name, type]) => `${name} ${type}`).join(', ')
  return `json_to_recordset(${placeholder}) AS ${alias}(${definition})`
}

/** The JSON array of objects for `rows` (values in `columns` order), written by hand: no per-row object. */
export function recordsetJson(columns: Columns, rows: readonly (readonly unknown[])[]): string {
  const keys = columns.map(([name], c) => `${c === 0 ? '{' : ','}"${name}":`)
  const objects = rows.map((row) => {
    let text = ''
    for (let c = 0; c < keys.length; c++) text += keys[c] + encode(row[c], columns[c]?.[0])
    return `${text}}`
  })
  return `[${objects.join(',')}]`
}

/** JSON would turn NaN and Infinity into null: refused instead of stored as NULL. */
function encode(value: unknown, column: string | undefined): string {
  if (typeof value === 'number' && !Number.isFinite(value)) {
    throw new InvalidArgumentError(`${column ?? 'a value'} must be a finite number, got ${value}`)
  }
  return JSON.stringify(value ?? null)
}
