/**
 * The checks each field of a wire message must pass (parse.ts applies them). Each returns the
 * reason a value is refused, or null. Kept to the rules the JSON Schema
 * (packages/core/wire-schema/v1.json) states, which a test cross-checks on generated messages;
 * the one rule it cannot state is "no lone surrogates" (docs/wire.md).
 */
import { MAX_ID_LENGTH } from '../util/validate.ts'

export type FieldCheck = (value: unknown) => string | null

export const MAX_NAME_LENGTH = 1000
/**
 * A task id (task_id.ts) of any run id the format carries: 255 code points of 4 UTF-8 bytes
 * are 1,360 base64url characters, plus the dots, a 16-digit seq and a 10-digit attempt.
 */
export const MAX_TASK_ID_LENGTH = 1400
/** The largest integer the format carries: 2^53 − 1 (exact in JSON numbers everywhere). */
const MAX_SAFE = Number.MAX_SAFE_INTEGER
/** Durations: what a JavaScript timer can wait (2^31 − 1 ms, about 24.8 days). */
export const MAX_DURATION_MS = 2_147_483_647
/** Ids in lists (capabilities, steps): at most this many. */
export const MAX_LIST_LENGTH = 1000

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/**
 * Lengths are counted in Unicode code points, as JSON Schema's `maxLength` counts them (and as
 * most languages count a string), not in UTF-16 code units (`.length`): `😀` is one. A lone
 * surrogate counts one, as in JSON Schema validators.
 */
function text(maxLength: number): FieldCheck {
  return (value) => {
    if (typeof value !== 'string') return `must be a string, got ${kind(value)}`
    if (value.length === 0) return 'must not be empty'
    if (longerThan(value, maxLength)) return `must be at most ${maxLength} characters`
    if (CONTROL.test(value)) return 'must not contain control characters'
    if (!value.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)'
    return null
  }
}

/** Whether `value` has more than `max` code points (reads at most max + 1 of them). */
function longerThan(value: string, max: number): boolean {
  if (value.length <= max) return false // never more code points than code units
  let count = 0
  for (const _ of value) if (++count > max) return true
  return false
}

export const id = text(MAX_ID_LENGTH)
export const name = text(MAX_NAME_LENGTH)
export const taskId = text(MAX_TASK_ID_LENGTH)

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
