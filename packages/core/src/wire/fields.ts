/**
 * The checks each field of a wire message must pass (parse.ts applies them). Each returns the
 * reason a value is refused, or null. Kept to the rules the JSON Schema (wire/schema/v1.json)
 * states, which a test cross-checks on generated messages.
 */
import { MAX_ID_LENGTH } from '../util/validate.ts'

export type FieldCheck = (value: unknown) => string | null

export const MAX_NAME_LENGTH = 1000
/** The largest integer the format carries: 2^53 − 1 (exact in JSON numbers everywhere). */
const MAX_SAFE = Number.MAX_SAFE_INTEGER
/** Durations: what a JavaScript timer can wait (2^31 − 1 ms, about 24.8 days). */
export const MAX_DURATION_MS = 2_147_483_647
/** Ids in lists (capabilities, steps): at most this many. */
export const MAX_LIST_LENGTH = 1000

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

function text(maxLength: number): FieldCheck {
  return (value) => {
    if (typeof value !== 'string') return `must be a string, got ${kind(value)}`
    if (value.length === 0) return 'must not be empty'
    if (value.length > maxLength) return `must be at most ${maxLength} characters`
    if (CONTROL.test(value)) return 'must not contain control characters'
    if (!value.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)'
    return null
  }
}

export const id = text(MAX_ID_LENGTH)
export const name = text(MAX_NAME_LENGTH)

/** A codec-encoded payload: any well-formed string (its size is bounded by the message's). */
export const payload: FieldCheck = (value) => {
  if (typeof value !== 'string') return `must be a string, got ${kind(value)}`
  if (!value.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)'
  return null
}

/** Free text (an error message, a stack): a string, any content. */
export const freeText: FieldCheck = (value) =>
  typeof value === 'string' ? null : `must be a string, got ${kind(value)}`

export function integer(min: number, max: number = MAX_SAFE): FieldCheck {
  return (value) => {
    if (typeof value !== 'number' || !Number.isInteger(value))
      return `must be an integer, got ${kind(value)}`
    if (value < min || value > max) return `must be from ${min} to ${max}, got ${value}`
    return null
  }
}

export function nullable(check: FieldCheck): FieldCheck {
  return (value) => (value === null ? null : check(value))
}

export function literal(...allowed: readonly (string | number | boolean)[]): FieldCheck {
  return (value) =>
    allowed.includes(value as string)
      ? null
      : `must be ${allowed.map((a) => JSON.stringify(a)).join(' or ')}`
}

export const boolean: FieldCheck = (value) =>
  typeof value === 'boolean' ? null : `must be true or false, got ${kind(value)}`

/** An array of distinct values, each passing `check`, at most MAX_LIST_LENGTH of them. */
export function list(check: FieldCheck, minItems = 0): FieldCheck {
  return (value) => {
    if (!Array.isArray(value)) return `must be an array, got ${kind(value)}`
    if (value.length < minItems) return `must have at least ${minItems} item(s)`
    if (value.length > MAX_LIST_LENGTH) return `must have at most ${MAX_LIST_LENGTH} items`
    for (let i = 0; i < value.length; i++) {
      const problem = check(value[i])
      if (problem !== null) return `[${i}] ${problem}`
    }
    if (new Set(value).size !== value.length) return 'must not repeat an item'
    return null
  }
}

export const epochMs = integer(0, 8_640_000_000_000_000)
export const duration = integer(1, MAX_DURATION_MS)

export function kind(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}
