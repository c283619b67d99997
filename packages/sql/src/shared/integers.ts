/**
 * Integers as drivers hand them over: a number (pg with Cairn's int8 parser, mysql2 for
 * small values), a decimal string (pg's default for int8, mysql2 with bigNumberStrings) or a
 * bigint. Each becomes a JavaScript number only when it is exact: a value beyond 2^53 is a
 * loud store failure, never a silently rounded time or epoch.
 */
import { StoreFailureError } from '@cairn/core'

export function toSafeInteger(value: unknown, column: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value)) return value
  const converted = typeof value === 'string' || typeof value === 'bigint' ? Number(value) : NaN
  if (Number.isSafeInteger(converted) && String(converted) === String(value)) return converted
  throw new StoreFailureError(
    `the database returned ${String(value)} for ${column}: not an integer JavaScript represents exactly`,
    { details: { column, value: String(value) } },
  )
}

export function toSafeIntegerOrNull(value: unknown, column: string): number | null {
  return value === null ? null : toSafeInteger(value, column)
}
