/**
 * Checking an upsert against the workflow's Standard Schema (`searchAttributes` option). The
 * schema sees the upsert as the workflow wrote it, nulls (removals) included: a schema of
 * optional fields, `.nullable()` where removal is allowed, fits. What it answers is a check
 * only: its output value (a transformed copy) is not what gets stored.
 */
import type { SearchAttributeUpsert } from '../contracts/search_attributes.ts'
import type {
  StandardSchemaIssue,
  StandardSchemaResult,
  StandardSchemaV1,
} from '../contracts/standard_schema.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { issuePath } from '../schema/validate.ts'

/** An issue as recorded in the error's details: a message and a printable path. */
export interface SchemaIssueDetail {
  message: string
  path: Array<string | number>
}

/**
 * null: accepted (or no schema). An error: rejected (synchronously). A promise: the schema
 * answers asynchronously with one of those.
 */
export function checkWithSchema(
  schema: StandardSchemaV1 | undefined,
  upsert: SearchAttributeUpsert,
): InvalidArgumentError | null | Promise<InvalidArgumentError | null> {
  if (schema === undefined) return null
  const result = schema['~standard'].validate(upsert)
  if (result instanceof Promise) return result.then(verdict)
  return verdict(result)
}

export { isStandardSchema } from '../schema/validate.ts'

function verdict(result: StandardSchemaResult<unknown>): InvalidArgumentError | null {
  if (result.issues === undefined) return null
  const issues = result.issues.map(issueDetail)
  const summary = issues
    .map(({ message, path }) => (path.length > 0 ? `${path.join('.')}: ${message}` : message))
    .join('; ')
  return new InvalidArgumentError(
    `upsertSearchAttributes: the workflow's searchAttributes schema rejected the attributes: ${summary}`,
    { details: { reason: 'schema', issues } },
  )
}

function issueDetail(issue: StandardSchemaIssue): SchemaIssueDetail {
  return { message: String(issue.message), path: issuePath(issue.path) }
}
