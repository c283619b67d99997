/**
 * A run id as a URL path segment. Ids are any printable text, and `.` and `..` are ids like any
 * other — but as path segments every URL parser resolves them away (`api/runs/..` is `api/`,
 * `%2E%2E` included), so they could never be opened. Such ids travel escaped: `!` + the id,
 * for an id made of one or two dots after any number of `!` (so `!.` travels as `!!.`, and the
 * escape stays unambiguous). Every other id goes as itself (percent-encoded as usual). The
 * console escapes with the same rule (console/run_path.js).
 */
import type { Context } from 'hono'

const ESCAPED = /^!+\.{1,2}$/

/** The run id a `:id` segment names. */
export function runIdParam(c: Context): string {
  const segment = c.req.param('id') ?? ''
  return ESCAPED.test(segment) ? segment.slice(1) : segment
}

/** The path segment of a run id (before percent-encoding). */
export function runIdSegment(runId: string): string {
  return /^!*\.{1,2}$/.test(runId) ? `!${runId}` : runId
}
