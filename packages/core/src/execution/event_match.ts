/**
 * The `match` of `ctx.waitForEvent`: a plain object whose keys are dotted paths into the
 * event's payload (`'order.id'`) and whose values are JSON scalars; an event matches when
 * the value at every path is strictly equal (`===`) to the given one. Checked when the wait
 * is called (E_INVALID_ARGUMENT), kept as JSON text with the registered wait, and evaluated by
 * the engine (publisher and suspending run alike) on the decoded payload, so both sides agree.
 */
import { InvalidArgumentError } from '../errors/index.ts'

export type EventMatchValue = string | number | boolean | null
export type EventMatch = Readonly<Record<string, EventMatchValue>>

const MAX_PATHS = 32
const MAX_PATH_LENGTH = 200

/**
 * The match as stored: JSON text with its paths sorted (the same match, the same text), or
 * null when there is nothing to match (every event of the name is received).
 */
export function encodeEventMatch(match: unknown, what = 'waitForEvent match'): string | null {
  if (match === undefined) return null
  if (!isPlainObject(match)) {
    throw new InvalidArgumentError(
      `${what} must be a plain object of dotted path → scalar, got ${describe(match)}`,
    )
  }
  const paths = Object.keys(match).sort()
  if (paths.length > MAX_PATHS) {
    throw new InvalidArgumentError(
      `${what} may name at most ${MAX_PATHS} paths, got ${paths.length}`,
    )
  }
  for (const path of paths) checkEntry(path, match[path], what)
  if (paths.length === 0) return null
  return JSON.stringify(Object.fromEntries(paths.map((path) => [path, match[path]])))
}

/** Whether `payload` (decoded) has the value of every path of `match` (stored text). */
export function eventMatches(match: string | null, payload: unknown): boolean {
  if (match === null) return true
  const wanted = JSON.parse(match) as Record<string, EventMatchValue>
  return Object.entries(wanted).every(([path, value]) => valueAt(payload, path) === value)
}

/** The value at a dotted path, through own properties of objects and arrays only. */
function valueAt(payload: unknown, path: string): unknown {
  let value = payload
  for (const segment of path.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, segment)) {
      return undefined
    }
    value = (value as Record<string, unknown>)[segment]
  }
  return value
}

function checkEntry(path: string, value: unknown, what: string): void {
  if (path.length > MAX_PATH_LENGTH || path.split('.').some((segment) => segment === '')) {
    throw new InvalidArgumentError(
      `${what} paths are 1 to ${MAX_PATH_LENGTH} characters of non-empty dot-separated names, got ${JSON.stringify(path)}`,
      { details: { path } },
    )
  }
  const scalar =
    value === null ||
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  if (!scalar) {
    throw new InvalidArgumentError(
      `${what} values are strings, finite numbers, booleans or null; ${JSON.stringify(path)} is ${describe(value)}`,
      { details: { path } },
    )
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

function describe(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'number') return String(value)
  return typeof value === 'object' ? `a ${value.constructor?.name ?? 'object'}` : typeof value
}
