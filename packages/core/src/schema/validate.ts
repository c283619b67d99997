/**
 * Values checked against a Standard Schema (a workflow's `inputSchema`, a step's `input` and
 * `output`; docs/validation.md). The schema's output value is what goes on — the input a run
 * stores, the input a handler receives, the result a step records — so a schema that trims,
 * coerces or fills defaults does so once, where the value enters. Issues become a
 * SchemaValidationError (E_SCHEMA_VALIDATION, never retried), capped so a huge value's
 * hundred issues cannot make a huge error.
 */
import type { StandardSchemaIssue, StandardSchemaV1 } from '../contracts/standard_schema.ts'
import { SchemaValidationError, type SchemaIssue } from '../errors/index.ts'

/** Issues kept in an error's details; messages cut at MAX_MESSAGE characters. */
const MAX_ISSUES = 50
const MAX_MESSAGE = 500

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
  let result
  try {
    result = await schema['~standard'].validate(value)
  } catch (error) {
    // A schema that throws (a refinement that crashed on the value) rejected it all the same.
    const message = error instanceof Error ? error.message : String(error)
    throw new SchemaValidationError(
      subject,
      [{ message: cut(`the schema threw: ${message}`), path: [] }],
      details,
    )
  }
  if (result.issues === undefined) return result.value
  const issues = result.issues.slice(0, MAX_ISSUES).map(toIssue)
  if (issues.length === 0) issues.push({ message: 'rejected without saying why', path: [] })
  throw new SchemaValidationError(subject, issues, {
    ...details,
    ...(result.issues.length > MAX_ISSUES ? { issueCount: result.issues.length } : {}),
  })
}

function toIssue(issue: StandardSchemaIssue): SchemaIssue {
  return { message: cut(String(issue.message)), path: issuePath(issue.path) }
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
    return typeof key === 'number' ? key : String(key)
  })
}

function cut(text: string): string {
  return text.length > MAX_MESSAGE ? `${text.slice(0, MAX_MESSAGE)}…` : text
}
