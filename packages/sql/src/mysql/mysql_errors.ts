/**
 * Reading mysql2 failures: the server's error number (`errno`, with `sqlState`) or, when the
 * connection itself failed, a socket error, one of mysql2's own codes, or its `fatal` flag.
 */
import type { FailureKind } from '../shared/driver.ts'
import { OutcomeUnknown } from '../shared/failures.ts'

/** Nothing was applied and the same transaction may well succeed now. */
const RETRYABLE_ERRNOS: ReadonlySet<number> = new Set([
  1213, // ER_LOCK_DEADLOCK: InnoDB rolled the transaction back
  1205, // ER_LOCK_WAIT_TIMEOUT (innodb_lock_wait_timeout); the store rolls back whole
  // ER_DUP_ENTRY: the portable writer inserts rows it found missing under its locks; a
  // concurrent insert of the same run id makes it fail, and the retry reads that row.
  1062,
  1020, // ER_CHECKREAD: MariaDB's innodb_snapshot_isolation found the row changed
  // ER_AUTOINC_READ_FAILED: how InnoDB reports a deadlock met while taking a table's AUTO-INC
  // lock (concurrent INSERT … SELECT creates at REPEATABLE READ, seen on MariaDB 10.11): the
  // victim was rolled back like any deadlock's.
  1467,
])

/** The server ended the session or is going away: whatever was in flight is cut off. */
const SESSION_ENDED_ERRNOS: ReadonlySet<number> = new Set([
  1053, // ER_SERVER_SHUTDOWN
  1927, // ER_CONNECTION_KILLED (MariaDB: KILL CONNECTION)
  2006, // CR_SERVER_GONE_ERROR
  2013, // CR_SERVER_LOST
  4031, // ER_CLIENT_INTERACTION_TIMEOUT (MySQL 8: wait_timeout)
])

const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
])

/** ER_NO_SUCH_TABLE, ER_BAD_DB_ERROR: the database Cairn migrates into is not there yet. */
const MISSING_TABLE_ERRNOS: ReadonlySet<number> = new Set([1146, 1049])

function errnoOf(error: unknown): number | undefined {
  const errno = (error as { errno?: unknown } | null)?.errno
  return typeof errno === 'number' && errno > 0 ? errno : undefined
}

/** The connection is gone (or never came up). */
export function isConnectionLoss(error: unknown): boolean {
  if (error === null || typeof error !== 'object') return false
  const errno = errnoOf(error)
  if (errno !== undefined && SESSION_ENDED_ERRNOS.has(errno)) return true
  const { code, fatal } = error as { code?: unknown; fatal?: unknown }
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true
  // mysql2 marks every error that closed the connection `fatal` (a server error such as a
  // duplicate key is not), including "Can't add new command when connection is in closed state".
  return fatal === true
}

export function classifyMysqlError(error: unknown): FailureKind {
  if (error instanceof OutcomeUnknown) return 'outcome_unknown'
  const errno = errnoOf(error)
  if (errno !== undefined && RETRYABLE_ERRNOS.has(errno)) return 'retryable'
  return isConnectionLoss(error) ? 'retryable' : 'fatal'
}

export function describeMysqlError(error: unknown): Record<string, unknown> {
  const cause = error instanceof OutcomeUnknown ? error.cause : error
  const errno = errnoOf(cause)
  if (errno === undefined) return {}
  const { sqlState, code } = cause as { sqlState?: unknown; code?: unknown }
  return {
    errno,
    ...(typeof sqlState === 'string' ? { sqlState } : {}),
    ...(typeof code === 'string' ? { code } : {}),
  }
}

export function isMissingTable(error: unknown): boolean {
  const errno = errnoOf(error)
  return errno !== undefined && MISSING_TABLE_ERRNOS.has(errno)
}

/** ER_DUP_ENTRY: a row of the same primary or unique key is there. */
export function isDuplicateKey(error: unknown): boolean {
  return errnoOf(error) === 1062
}

/** The server refused a statement larger than max_allowed_packet, and closes the connection. */
export function isPacketTooLarge(error: unknown): boolean {
  return errnoOf(error) === 1153
}
