/**
 * Values checked against a Standard Schema (a workflow's `inputSchema`, a step's `input` and
 * `output`; docs/validation.md). The schema's output value is what goes on — the input a run
 * stores, the input a handler receives, the result a step records — so a schema that trims,
 * coerces or fills defaults does so once, where the value enters. Issues become a
 * SchemaValidationError (E_SCHEMA_VALIDATION, never retried), capped so a huge value's
 * hundred issues cannot make a huge error. A schema that answers nothing sensible (no result,
 * malformed issues) rejects the value; one that does not answer in time is a retryable failure.
 */
import type { StandardSchemaV1 } from '../contracts/standard_schema.ts'
import { RetryableError, SchemaValidationError, type SchemaIssue } from '../errors/index.ts'

/** Issues kept in an error's details; messages cut at MAX_MESSAGE characters. */
const MAX_ISSUES = 50
const MAX_MESSAGE = 500
/**
 * Longest a schema may take to answer (real time: a guard against a rule whose lookup hangs).
 * Past it the check fails as retryable (E_RETRYABLE), not as a mismatch: the value may be fine.
 */
export const SCHEMA_TIMEOUT_MS = 10_000

/**
 * `value` through `schema` (none: as it is). `subject` names what is checked in the error
 * (`input of workflow "checkout"`); `details` joins its details.
 */
export async function validated(
  schema: StandardSchemaV1 | undefined,
  value: unknown,
  subject: string,
  details: Record<string, unknown> = {},
): Promise<unknown> {
  if (schema === undefined) return value
  const reject = (issues: SchemaIssue[], more: Record<string, unknown> = {}) =>
    new SchemaValidationError(subject, issues, { ...details, ...more })
  let answer: unknown
  try {
    answer = await answerOf(schema, value, subject)
  } catch (error) {
    if (RetryableError.is(error)) throw error
    // A schema that throws (a refinement that crashed on the value) rejected it all the same.
    const message = error instanceof Error ? error.message : safeText(error)
    throw reject([{ message: cut(`the schema threw: ${message}`), path: [] }])
  }
  if (typeof answer !== 'object' || answer === null)
    throw reject([{ message: 'the schema answered no result', path: [] }])
  const { value: out, issues } = answer as { value?: unknown; issues?: unknown }
  if (issues === undefined) return out
  if (!Array.isArray(issues))
    throw reject([{ message: 'the schema answered malformed issues', path: [] }])
  const kept = issues.slice(0, MAX_ISSUES).map(toIssue)
  if (kept.length === 0) kept.push({ message: 'rejected without saying why', path: [] })
  throw reject(kept, issues.length > MAX_ISSUES ? { issueCount: issues.length } : {})
}

/** The schema's answer, or E_RETRYABLE when it has not answered within SCHEMA_TIMEOUT_MS. */
async function answerOf(schema: StandardSchemaV1, value: unknown, subject: string) {
  const { promise: late, reject } = Promise.withResolvers<never>()
  const timer = setTimeout(
    () =>
      reject(
        new RetryableError(`${subject}: the schema did not answer within ${SCHEMA_TIMEOUT_MS} ms`),
      ),
    SCHEMA_TIMEOUT_MS,
  )
  timer.unref()
  try {
    return await Promise.race([schema['~standard'].validate(value), late])
  } finally {
    clearTimeout(timer)
  }
}

function toIssue(issue: unknown): SchemaIssue {
  const { message, path } = (typeof issue === 'object' && issue !== null ? issue : {}) as {
    message?: unknown
    path?: unknown
  }
  return { message: cut(safeText(message)), path: issuePath(path) }
}

/**
 * An issue's path as keys and indexes. The spec says an array of keys or `{ key }` segments;
 * VineJS 4 gives a dotted string (`items.0.sku`), read as its segments (digits as indexes).
 * Anything else is no path, never a crash.
 */
export function issuePath(path: unknown): Array<string | number> {
  if (typeof path === 'string')
    return path === '' ? [] : path.split('.').map((key) => (/^\d+$/.test(key) ? Number(key) : key))
  if (!Array.isArray(path)) return []
  return path.map((segment: unknown) => {
    const key =
      typeof segment === 'object' && segment !== null ? (segment as { key: unknown }).key : segment
    return typeof key === 'number' ? key : safeText(key)
  })
}

/** Text of anything, never a throw (an object without a prototype has no toString). */
function safeText(value: unknown): string {
  try {
    return String(value)
  } catch {
    return Object.prototype.toString.call(value)
  }
}

/** Whether `value` looks like a Standard Schema (an object with `~standard.validate`). */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { '~standard'?: { validate?: unknown } } | null)?.['~standard']
  return typeof props === 'object' && props !== null && typeof props.validate === 'function'
}

function cut(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text
}
