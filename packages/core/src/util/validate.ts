/**
 * Boundary checks for ids and names: rejected with a structured error, never truncated or
 * silently changed. Ids travel through URLs, logs and every store, so they stay printable.
 */
import { InvalidArgumentError } from '../errors/index.ts'

export const MAX_ID_LENGTH = 255
// C0/C1 control characters, and lone surrogates (not well-formed UTF-16).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/

/** Throws E_INVALID_ARGUMENT unless `value` is a 1..255-char printable, well-formed string. */
export function assertIdentifier(value: unknown, what: string): asserts value is string {
  if (typeof value !== 'string') {
    throw new InvalidArgumentError(`${what} must be a string, got ${typeof value}`, {
      details: { what },
    })
  }
  const problem = identifierProblem(value)
  if (problem !== null) {
    throw new InvalidArgumentError(`${what} ${problem}`, {
      details: { what, length: value.length },
    })
  }
}

function identifierProblem(value: string): string | null {
  if (value.length === 0) return 'must not be empty'
  if (value.length > MAX_ID_LENGTH)
    return `must be at most ${MAX_ID_LENGTH} characters (got ${value.length})`
  if (CONTROL.test(value)) return 'must not contain control characters'
  if (!value.isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)'
  if (value.trim() !== value) return 'must not start or end with whitespace'
  return null
}
