/**
 * Reading SQLite errors and turning them into Cairn's store errors. node:sqlite throws plain
 * Errors with `code: 'ERR_SQLITE_ERROR'` and the extended result code in `errcode`;
 * better-sqlite3 (knex/) throws SqliteErrors whose `code` is the result code's name
 * (`SQLITE_BUSY`, `SQLITE_BUSY_SNAPSHOT`).
 */
import { CairnError, StoreFailureError } from '@cairn/core'

const SQLITE_BUSY = 5
const SQLITE_LOCKED = 6
const SQLITE_FULL = 13

/** Primary result codes by number: `SQLITE_<name>`. */
const PRIMARY_NAMES = [
  'OK',
  'ERROR',
  'INTERNAL',
  'PERM',
  'ABORT',
  'BUSY',
  'LOCKED',
  'NOMEM',
  'READONLY',
  'INTERRUPT',
  'IOERR',
  'CORRUPT',
  'NOTFOUND',
  'FULL',
  'CANTOPEN',
  'PROTOCOL',
  'EMPTY',
  'SCHEMA',
  'TOOBIG',
  'CONSTRAINT',
  'MISMATCH',
  'MISUSE',
  'NOLFS',
  'AUTH',
  'FORMAT',
  'RANGE',
  'NOTADB',
  'NOTICE',
  'WARNING',
]

/** The primary SQLite result code of a thrown error, or null if it is not a SQLite error. */
export function sqliteCode(err: unknown): number | null {
  if (typeof err !== 'object' || err === null) return null
  const { errcode, code } = err as { errcode?: unknown; code?: unknown }
  if (typeof errcode === 'number') return errcode & 0xff
  const name = typeof code === 'string' ? /^SQLITE_([A-Z]+)/.exec(code)?.[1] : undefined
  const primary = name === undefined ? -1 : PRIMARY_NAMES.indexOf(name)
  return primary === -1 ? null : primary
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
