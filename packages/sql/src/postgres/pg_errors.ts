/**
 * Reading node-postgres failures: the server's SQLSTATE (`code` on a DatabaseError) or, when
 * the connection itself failed, a socket error or one of pg's own messages.
 */
import type { FailureKind } from '../shared/driver.ts'
import { OutcomeUnknown } from '../shared/failures.ts'

/** Nothing was applied and the same transaction may well succeed now. */
const RETRYABLE_STATES: ReadonlySet<string> = new Set([
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '55P03', // lock_not_available
  // unique_violation: the portable writer inserts rows it found missing under its locks; a
  // concurrent insert of the same run id or checkpoint makes it fail, and the retry sees it.
  '23505',
])

/** The server ended the session: admin_shutdown (pg_terminate_backend), crash_shutdown, cannot_connect_now. */
const SESSION_ENDED_STATES: ReadonlySet<string> = new Set(['57P01', '57P02', '57P03'])

const SOCKET_ERRORS: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
])

const PG_CONNECTION_MESSAGES =
  /Connection terminated|not queryable|timeout exceeded when trying to connect|Connection ended/

export function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined
}

/** The connection is gone (or never came up): whatever was in flight on it is cut off. */
export function isConnectionLoss(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false
  const state = sqlState(error)
  if (state !== undefined) return state.startsWith('08') || SESSION_ENDED_STATES.has(state)
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && SOCKET_ERRORS.has(code)) return true
  return error instanceof Error && PG_CONNECTION_MESSAGES.test(error.message)
}

export function classifyPgError(error: unknown): FailureKind {
  if (error instanceof OutcomeUnknown) return 'outcome_unknown'
  const state = sqlState(error)
  if (state !== undefined && RETRYABLE_STATES.has(state)) return 'retryable'
  return isConnectionLoss(error) ? 'retryable' : 'fatal'
}

export function describePgError(error: unknown): Record<string, unknown> {
  const cause = error instanceof OutcomeUnknown ? error.cause : error
  const state = sqlState(cause)
  return state === undefined ? {} : { sqlState: state }
}

/** undefined_table, or invalid_schema_name: the schema Cairn migrates into is not there yet. */
export function isMissingTable(error: unknown): boolean {
  const state = sqlState(error)
  return state === '42P01' || state === '3F000'
}
