/**
 * Reading node:sqlite errors and turning them into Cairn's store errors. node:sqlite throws
 * plain Errors with `code: 'ERR_SQLITE_ERROR'` and the extended result code in `errcode`.
 */
import { CairnError, StoreFailureError } from '@cairn/core'

const SQLITE_BUSY = 5
const SQLITE_LOCKED = 6
const SQLITE_FULL = 13

/** The primary SQLite result code of a thrown error, or null if it is not a SQLite error. */
export function sqliteCode(err: unknown): number | null {
  if (typeof err !== 'object' || err === null) return null
  const errcode = (err as { errcode?: unknown }).errcode
  return typeof errcode === 'number' ? errcode & 0xff : null
}

/** Another connection holds the lock we need: worth waiting and retrying. */
export function isBusy(err: unknown): boolean {
  const code = sqliteCode(err)
  return code === SQLITE_BUSY || code === SQLITE_LOCKED
}

export function isDiskFull(err: unknown): boolean {
  return sqliteCode(err) === SQLITE_FULL
}

/**
 * Wraps a failure of `operation` as E_STORE_FAILURE, naming the operation and the cause.
 * Cairn errors (a failed migration, an invalid argument) already say what happened: kept.
 */
export function storeFailure(operation: string, err: unknown): Error {
  if (CairnError.isCairnError(err)) return err
  const reason = isDiskFull(err) ? 'the database or disk is full' : describe(err)
  return new StoreFailureError(`sqlite store: ${operation} failed: ${reason}`, {
    cause: err,
    details: { operation, sqliteCode: sqliteCode(err) },
  })
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
