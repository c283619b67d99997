/**
 * A statement's text with its values written in (mysql2's escaping, the text protocol):
 * statements whose length depends on the row count (IN lists, several waves of ops) would
 * each become a server-side prepared statement of their own, and servers cap those
 * (max_prepared_stmt_count). Values are checked first, so nothing reaches the server altered:
 * mysql2 would send NaN as a column name and a lone surrogate as U+FFFD.
 */
import { InvalidArgumentError } from '@cairn/core'
import { format } from 'mysql2/promise'
import type { SqlStatement } from '../shared/driver.ts'

/** A statement the server would refuse for its size (it then closes the connection). */
export class StatementTooLarge extends Error {
  readonly errno = 1153
  readonly code = 'ER_NET_PACKET_TOO_LARGE'

  constructor(bytes: number, limit: number) {
    super(
      `the statement is ${bytes} bytes, more than the server's max_allowed_packet (${limit} bytes): ` +
        `payloads this large need a larger max_allowed_packet (docs/mysql.md)`,
    )
    this.name = 'StatementTooLarge'
  }
}

export function statementText(statement: SqlStatement): string {
  const { text, values } = statement
  if (values.length === 0) return text
  values.forEach(checkValue)
  return format(text, values as Parameters<typeof format>[1])
}

/** Strings, safe integers and NULL are all Cairn binds. */
export function checkValue(value: unknown): void {
  if (value === null || value === undefined) return
  if (typeof value === 'string') {
    if (!value.isWellFormed()) {
      throw new InvalidArgumentError(
        'mysql store: a string holds a lone surrogate, which UTF-8 cannot carry (the codec escapes them)',
      )
    }
    return
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new InvalidArgumentError(
      `mysql store: times, epochs and counts must be safe integers, got ${String(value)}`,
    )
  }
}
