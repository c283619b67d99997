/**
 * listRuns cursors: the (createdAt, id) of the last run of a page, as base64url JSON with a
 * checksum. The checksum is not a secret: it only makes an altered or truncated cursor fail
 * loudly (E_INVALID_CURSOR) instead of silently paging from somewhere else. Shared by every
 * store, so a cursor means the same thing everywhere.
 */
import { createHash } from 'node:crypto'
import { InvalidCursorError } from '../errors/index.ts'

export interface CursorPosition {
  createdAt: number
  id: string
}

export function encodeCursor(position: CursorPosition): string {
  const body = [position.createdAt, position.id]
  return Buffer.from(JSON.stringify([...body, checksum(body)])).toString('base64url')
}

/** The position a cursor names; throws InvalidCursorError for anything this store did not issue. */
export function decodeCursor(cursor: string): CursorPosition {
  const parsed = parseCursor(cursor)
  if (!isCursorTuple(parsed) || checksum([parsed[0], parsed[1]]) !== parsed[2]) throw invalid()
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

function isCursorTuple(value: unknown): value is [number, string, string] {
  return (
    Array.isArray(value) &&
    value.length === 3 &&
    Number.isSafeInteger(value[0]) &&
    typeof value[1] === 'string' &&
    typeof value[2] === 'string'
  )
}

function checksum(body: readonly unknown[]): string {
  return createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 12)
}

function invalid(): InvalidCursorError {
  return new InvalidCursorError('listRuns cursor is not one this store issued (garbage or altered)')
}
