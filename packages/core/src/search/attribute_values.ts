/**
 * Validation of search attribute names and values, shared by the engine (at the call in the
 * workflow) and every store (which refuses what the engine never sends). Bounds are chosen so
 * every SQL dialect can index a value: a name fits a short key column, a text value a 256-char
 * indexed column, a number a double, a time an integer of milliseconds.
 */
import type { SearchAttributeUpsert, SearchAttributeValue } from '../contracts/search_attributes.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { emptyRecord, isReservedKey } from '../util/reserved_keys.ts'

export const MAX_ATTRIBUTE_NAME_LENGTH = 64
/** In UTF-16 code units (so at most as many code points: every SQL column bound holds it). */
export const MAX_ATTRIBUTE_TEXT_LENGTH = 256
export const MAX_ATTRIBUTES_PER_UPSERT = 32

// Letters, digits, `_`, `.` and `-`, starting with a letter or `_`: safe in logs, URLs and
// query strings, and the same bytes in every collation.
const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/

/** Throws E_INVALID_ARGUMENT unless `name` is a valid attribute name. */
export function checkAttributeName(name: string, where: string): void {
  if (isReservedKey(name)) {
    throw new InvalidArgumentError(
      `${where}: "${name}" is reserved and cannot name a search attribute`,
      { details: { name, reason: 'name' } },
    )
  }
  if (name.length === 0 || name.length > MAX_ATTRIBUTE_NAME_LENGTH || !NAME.test(name)) {
    throw new InvalidArgumentError(
      `${where}: search attribute name "${name.slice(0, 80)}" must be 1..${MAX_ATTRIBUTE_NAME_LENGTH} characters of letters, digits, "_", "." or "-", starting with a letter or "_"`,
      { details: { name: name.slice(0, 80), reason: 'name' } },
    )
  }
}

/**
 * The value as stored: a copy (Dates are copied, -0 becomes 0 so every store compares it as
 * 0). Throws E_INVALID_ARGUMENT for anything else than a bounded, well-formed string without
 * NUL, a finite number, a boolean or a valid Date.
 */
export function checkAttributeValue(
  name: string,
  value: unknown,
  where: string,
): SearchAttributeValue {
  const problem = valueProblem(value)
  if (problem === null) {
    if (value instanceof Date) return new Date(value.getTime())
    return Object.is(value, -0) ? 0 : (value as SearchAttributeValue)
  }
  throw new InvalidArgumentError(`${where}: search attribute "${name}" ${problem}`, {
    details: { name, reason: 'value' },
  })
}

function valueProblem(value: unknown): string | null {
  if (typeof value === 'string') {
    if (value.length > MAX_ATTRIBUTE_TEXT_LENGTH)
      return `must be at most ${MAX_ATTRIBUTE_TEXT_LENGTH} characters (got ${value.length})`
    if (value.includes('\u0000')) return 'must not contain NUL characters'
    if (!value.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)'
    return null
  }
  if (typeof value === 'number') return Number.isFinite(value) ? null : 'must be a finite number'
  if (typeof value === 'boolean') return null
  if (value instanceof Date) {
    const time = value.getTime()
    return Number.isFinite(time) ? null : 'must be a valid Date'
  }
  return `must be a string, number, boolean, Date or null (to remove it), got ${describe(value)}`
}

function describe(value: unknown): string {
  if (value === undefined) return 'undefined'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : typeof value
}

/** A validated copy of an upsert: names checked, values as stored, null kept (removal). */
export function checkUpsert(attributes: unknown, where: string): SearchAttributeUpsert {
  if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) {
    throw new InvalidArgumentError(`${where}: search attributes must be a plain object`, {
      details: { reason: 'shape' },
    })
  }
  const names = Object.keys(attributes)
  if (names.length > MAX_ATTRIBUTES_PER_UPSERT) {
    throw new InvalidArgumentError(
      `${where}: at most ${MAX_ATTRIBUTES_PER_UPSERT} search attributes per upsert (got ${names.length})`,
      { details: { count: names.length, reason: 'count' } },
    )
  }
  const checked: SearchAttributeUpsert = emptyRecord()
  for (const name of names) {
    checkAttributeName(name, where)
    const value = (attributes as Record<string, unknown>)[name]
    checked[name] = value === null ? null : checkAttributeValue(name, value, where)
  }
  return checked
}
