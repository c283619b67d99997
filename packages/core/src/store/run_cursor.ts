/**
 * listRuns cursors: the (createdAt, id) of the last run of a page and the order of the list
 * it came from, as base64url JSON with a checksum. The checksum is not a secret: it only
 * makes an altered or truncated cursor fail loudly (E_INVALID_CURSOR) instead of silently
 * paging from somewhere else. Shared by every store, so a cursor means the same thing
 * everywhere. A newest-first cursor has no order field, so the cursors issued before lists
 * had an order still read as what they were.
 */
import { createHash } from 'node:crypto'
import type { RunListOrder } from '../contracts/index.ts'
import { InvalidCursorError } from '../errors/index.ts'

export interface CursorPosition {
  createdAt: number
  id: string
}

export function encodeCursor(position: CursorPosition, order: RunListOrder = 'newest'): string {
  const body = [position.createdAt, position.id, ...(order === 'oldest' ? [order] : [])]
  return Buffer.from(JSON.stringify([...body, checksum(body)])).toString('base64url')
}

/**
 * The position a cursor names; throws InvalidCursorError for anything this store did not
 * issue, and for a cursor of a list in the other order (its position is past in one
 * direction and not the other: paging on would skip or repeat runs without a word).
 */
export function decodeCursor(cursor: string, order: RunListOrder = 'newest'): CursorPosition {
  const parsed = parseCursor(cursor)
  if (!isCursorTuple(parsed)) throw invalid()
  const body = parsed.slice(0, -1)
  if (checksum(body) !== parsed[parsed.length - 1]) throw invalid()
  const issuedFor = body.length === 3 ? body[2] : 'newest'
  if (issuedFor !== order)
    throw new InvalidCursorError(
      `listRuns cursor was issued for order ${String(issuedFor)}, not ${order}`,
    )
  return { createdAt: parsed[0], id: parsed[1] }
}

function parseCursor(cursor: string): unknown {
  if (typeof cursor !== 'string' || cursor === '') throw invalid()
  const bytes = Buffer.from(cursor, 'base64url')
  // Node decodes leniently (skips junk, ignores spare bits): insist on the canonical form.
  if (bytes.toString('base64url') !== cursor) throw invalid()
  try {
    return JSON.parse(bytes.toString('utf8'))
  } catch {
    throw invalid()
  }
}

/** [createdAt, id, checksum] (newest first) or [createdAt, id, 'oldest', checksum]. */
function isCursorTuple(value: unknown): value is [number, string, ...string[]] {
  return (
    Array.isArray(value) &&
    (value.length === 3 || (value.length === 4 && value[2] === 'oldest')) &&
    Number.isSafeInteger(value[0]) &&
    value.slice(1).every((part) => typeof part === 'string')
  )
}

function checksum(body: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 12)
}

function invalid(): InvalidCursorError {
  return new InvalidCursorError('listRuns cursor is not one this store issued (garbage or altered)')
}
