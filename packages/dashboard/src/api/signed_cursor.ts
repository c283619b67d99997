/**
 * Page cursors the dashboard hands out: the store's cursor and the filter and sort it pages
 * through, signed together. A cursor altered by one byte, made up, or replayed with a
 * different filter or sort answers 400 E_INVALID_CURSOR instead of paging from somewhere else.
 */
import { createHash } from 'node:crypto'
import { sign, unsign } from '../auth/signing.ts'
import { invalidCursor } from '../http/http_error.ts'
import type { RunFilter } from './run_filter.ts'
import { DEFAULT_SORT, type RunSort } from './run_sort.ts'

const MAX_CURSOR_CHARS = 2048

export function wrapCursor(
  secret: string,
  storeCursor: string,
  filter: RunFilter,
  sort: RunSort = DEFAULT_SORT,
): string {
  return sign(secret, 'cursor', [storeCursor, listDigest(filter, sort)])
}

/** The store cursor inside `cursor`, if it was issued for exactly this filter and sort. */
export function unwrapCursor(
  secret: string,
  cursor: string,
  filter: RunFilter,
  sort: RunSort = DEFAULT_SORT,
): string {
  if (cursor.length > MAX_CURSOR_CHARS) throw invalidCursor()
  const payload = unsign(secret, 'cursor', cursor)
  if (!Array.isArray(payload) || payload.length !== 2) throw invalidCursor()
  const [storeCursor, digest] = payload as unknown[]
  if (typeof storeCursor !== 'string' || digest !== listDigest(filter, sort)) throw invalidCursor()
  return storeCursor
}

/**
 * The default sort digests the filter alone, as before sorts existed, so cursors handed out
 * then still page; another sort digests [filter, sort], which no filter object can equal.
 */
function listDigest(filter: RunFilter, sort: RunSort): string {
  const bound = sort === DEFAULT_SORT ? filter : [filter, sort]
  return createHash('sha256').update(JSON.stringify(bound)).digest('base64url')
}
