/**
 * Page cursors the dashboard hands out: the store's cursor and the filter it pages through,
 * signed together. A cursor altered by one byte, made up, or replayed with a different
 * filter answers 400 E_INVALID_CURSOR instead of paging from somewhere else.
 */
import { createHash } from 'node:crypto'
import { sign, unsign } from '../auth/signing.ts'
import { invalidCursor } from '../http/http_error.ts'
import type { RunFilter } from './run_filter.ts'

const MAX_CURSOR_CHARS = 2048

export function wrapCursor(secret: string, storeCursor: string, filter: RunFilter): string {
  return sign(secret, 'cursor', [storeCursor, filterDigest(filter)])
}

/** The store cursor inside `cursor`, if it was issued for exactly this filter. */
export function unwrapCursor(secret: string, cursor: string, filter: RunFilter): string {
  if (cursor.length > MAX_CURSOR_CHARS) throw invalidCursor()
  const payload = unsign(secret, 'cursor', cursor)
  if (!Array.isArray(payload) || payload.length !== 2) throw invalidCursor()
  const [storeCursor, digest] = payload as unknown[]
  if (typeof storeCursor !== 'string' || digest !== filterDigest(filter)) throw invalidCursor()
  return storeCursor
}

function filterDigest(filter: RunFilter): string {
  return createHash('sha256').update(JSON.stringify(filter)).digest('base64url')
}
