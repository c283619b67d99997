/**
 * What every store refuses in an `admissionKeys` query (E_INVALID_ARGUMENT, nothing read) and
 * its cursors: the (scope, key) of a page's last key, as base64url JSON with a checksum. The
 * checksum is not a secret: it only makes an altered or truncated cursor fail loudly
 * (E_INVALID_CURSOR) instead of paging from somewhere else. Shared by every store, so a
 * cursor means the same everywhere.
 */
import { createHash } from 'node:crypto'
import type { AdmissionKey, AdmissionKeysQuery } from '../contracts/index.ts'
import { InvalidArgumentError, InvalidCursorError } from '../errors/index.ts'
import { checkAdmissionKey } from './admission_check.ts'

/** Keys a page holds when the query gives no limit. */
export const DEFAULT_ADMISSION_KEYS_PAGE = 50
/** The largest `limit` a query may give. */
export const MAX_ADMISSION_KEYS_PAGE = 1000

const FIELDS = new Set(['scope', 'limit', 'cursor'])

/** The query, checked: its scope filter, page size and the key the page starts after. */
export interface AdmissionKeysStart {
  /** Only keys of this scope; undefined: every scope. */
  scope: string | undefined
  /** Keys on the page (the statement reads one more, to know whether another page follows). */
  limit: number
  /** The page holds keys after this one (null: from the first). */
  after: AdmissionKey | null
}

/**
 * The query checked (E_INVALID_ARGUMENT, E_INVALID_CURSOR for a cursor no store issued), as
 * where its page starts: what every store's `admissionKeys` reads first.
 */
export function checkAdmissionKeysQuery(query: AdmissionKeysQuery): AdmissionKeysStart {
  if (typeof query !== 'object' || query === null || Array.isArray(query))
    throw invalid('the query is an object { scope?, limit?, cursor? }', 'query')
  const unknown = Object.keys(query).find((name) => !FIELDS.has(name))
  if (unknown !== undefined) throw invalid(`the query has no field "${unknown}"`, unknown)
  const { scope, limit, cursor } = query as Record<string, unknown>
  if (scope !== undefined) {
    try {
      checkAdmissionKey(scope, 'admissionKeys: scope', '')
    } catch (err) {
      throw invalid((err as Error).message.replace(/^admissionKeys: /, ''), 'scope')
    }
  }
  if (
    limit !== undefined &&
    !(
      Number.isInteger(limit) &&
      (limit as number) >= 1 &&
      (limit as number) <= MAX_ADMISSION_KEYS_PAGE
    )
  )
    throw invalid(
      `limit must be an integer in 1..${MAX_ADMISSION_KEYS_PAGE}, got ${String(limit)}`,
      'limit',
    )
  if (cursor !== undefined && (typeof cursor !== 'string' || cursor === ''))
    throw invalid('cursor must be a non-empty string (a nextCursor)', 'cursor')
  return {
    scope: scope as string | undefined,
    limit: (limit as number | undefined) ?? DEFAULT_ADMISSION_KEYS_PAGE,
    after: cursor === undefined ? null : decodeAdmissionCursor(cursor as string),
  }
}

/** The cursor of a page whose last key is `last` (AdmissionKeyPage.nextCursor). */
export function encodeAdmissionCursor(last: AdmissionKey): string {
  const body = [last.scope, last.key]
  return Buffer.from(JSON.stringify([...body, checksum(body)])).toString('base64url')
}

/** The key a cursor names; InvalidCursorError for anything no store issued. */
export function decodeAdmissionCursor(cursor: string): AdmissionKey {
  const bytes = Buffer.from(cursor, 'base64url')
  // Node decodes leniently (skips junk, ignores spare bits): insist on the canonical form.
  if (bytes.toString('base64url') !== cursor) throw badCursor()
  let parsed: unknown
  try {
    parsed = JSON.parse(bytes.toString('utf8'))
  } catch {
    throw badCursor()
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 3 ||
    !parsed.every((part) => typeof part === 'string') ||
    checksum(parsed.slice(0, 2)) !== parsed[2]
  )
    throw badCursor()
  return { scope: parsed[0] as string, key: parsed[1] as string }
}

function checksum(body: readonly unknown[]): string {
  return createHash('sha256')
    .update(JSON.stringify(['admissionKeys', ...body]))
    .digest('base64url')
    .slice(0, 12)
}

function badCursor(): InvalidCursorError {
  return new InvalidCursorError(
    'admissionKeys cursor is not one this store issued (garbage or altered)',
  )
}

function invalid(message: string, field: string): InvalidArgumentError {
  return new InvalidArgumentError(`admissionKeys: ${message}`, { details: { field } })
}
