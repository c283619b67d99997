/**
 * admissionKeys: one statement per page on every SQL store (SQLite binds the same text with
 * `?`). It walks the key table (`cairn_admission_keys`) in key order from the cursor — on
 * SQLite and MySQL/MariaDB a range of its primary key, whose columns compare as bytes (code
 * point order), stopping once the page is full — and for each key reads its runs through the
 * admission index (admission_scope, admission_key, status, admission_seq): an EXISTS over the
 * open statuses steps over keys whose runs all ended, two COUNTs over status ranges count the
 * admitted and the queued, and the queue's first entry gives the oldest queued run's creation
 * (the only run row read, one per key). Postgres keeps the key table in the database's
 * collation, so it sorts the keys (of the scope asked for) by `COLLATE "C"`; its planner may
 * instead start from the open runs (the status index) and join them to their keys. Keys whose
 * runs all ended stay in the key table: a walk steps over them.
 */
import type { AdmissionKeyPage, AdmissionKeyStats, AdmissionKeysQuery } from '@cairn/core/contracts'
import {
  checkAdmissionKeysQuery,
  encodeAdmissionCursor,
  type AdmissionKeysStart,
} from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import { toSafeInteger, toSafeIntegerOrNull } from './integers.ts'
import { Params } from './params.ts'

/** Statuses of a run holding a slot, as stored (a blocked run is stored `waiting`). */
const ADMITTED = "('pending', 'running', 'waiting', 'parked')"
/** The open statuses of a key's runs: holding a slot, or queued for one (listRuns' filter too). */
export const OPEN_UNDER_KEY = "('queued', 'pending', 'running', 'waiting', 'parked')"

/** What the statement text depends on besides the tables: the filters given and the cursor. */
export interface KeysPageText {
  runs: string
  keys: string
  /** Binds a value, returning its placeholder (called in text order). */
  bind(value: unknown): string
  /** A column compared and sorted by code point (Postgres `COLLATE "C"`). */
  byCodePoint(column: string): string
  /** After the runs table: read it through the admission index ('' where the planner does). */
  useIndex: string
  /** The cursor as a row-value comparison (SQLite), or as two comparisons ORed. */
  rowValues: boolean
}

/**
 * The statement of a page (limit + 1 rows: one more says another page follows), or null when
 * the page is empty without reading (a cursor past the end of the scope asked for).
 */
export function admissionKeysSql(start: AdmissionKeysStart, t: KeysPageText): string | null {
  const { scope, after } = start
  const code = t.byCodePoint
  const where: string[] = []
  if (scope !== undefined) {
    // The cursor's scope before this one: the whole scope; past it: nothing.
    const from = after === null ? -1 : Buffer.compare(utf8(after.scope), utf8(scope))
    if (from > 0) return null
    where.push(`k.scope = ${t.bind(scope)}`)
    if (after !== null && from === 0)
      where.push(`${code('k.admission_key')} > ${t.bind(after.key)}`)
  } else if (after !== null) {
    // (scope, key) > (s, k): a range of the primary key starting at the cursor. SQLite ranges
    // over a row value; MySQL and MariaDB do not (they would walk the cursor's scope from its
    // first key), but do over two ranges ORed.
    where.push(
      t.rowValues
        ? `(${code('k.scope')}, ${code('k.admission_key')}) > (${t.bind(after.scope)}, ${t.bind(after.key)})`
        : `((${code('k.scope')} = ${t.bind(after.scope)} AND ${code('k.admission_key')} > ${t.bind(after.key)}) OR ${code('k.scope')} > ${t.bind(after.scope)})`,
    )
  }
  const runsOf = (statuses: string) =>
    `FROM ${t.runs} r ${t.useIndex} WHERE r.admission_scope = k.scope
      AND r.admission_key = k.admission_key AND r.status ${statuses}`
  where.push(`EXISTS (SELECT 1 ${runsOf(`IN ${OPEN_UNDER_KEY}`)})`)
  // One scope: by key alone (MariaDB sorts the range otherwise, not seeing the scope fixed).
  const order =
    scope === undefined ? `${code('k.scope')}, ${code('k.admission_key')}` : code('k.admission_key')
  return `SELECT k.scope, k.admission_key, k.lim,
    (SELECT COUNT(*) ${runsOf(`IN ${ADMITTED}`)}) AS admitted,
    (SELECT COUNT(*) ${runsOf("= 'queued'")}) AS queued,
    (SELECT r.created_at ${runsOf("= 'queued'")} ORDER BY r.admission_seq LIMIT 1) AS oldest
    FROM ${t.keys} k WHERE ${where.join(' AND ')}
    ORDER BY ${order} LIMIT ${t.bind(start.limit + 1)}`
}

/** The page from the statement's rows (columns in its order). */
export function toAdmissionKeyPage(
  start: AdmissionKeysStart,
  rows: readonly (readonly unknown[])[],
): AdmissionKeyPage {
  const keys = rows.slice(0, start.limit).map(toStats)
  const last = keys[keys.length - 1]
  const more = rows.length > start.limit && last !== undefined
  return { keys, nextCursor: more ? encodeAdmissionCursor(last) : null }
}

function toStats(row: readonly unknown[]): AdmissionKeyStats {
  return {
    scope: row[0] as string,
    key: row[1] as string,
    limit: toSafeInteger(row[2], 'lim'),
    admitted: toSafeInteger(row[3], 'admitted'),
    queued: toSafeInteger(row[4], 'queued'),
    oldestQueuedSince: toSafeIntegerOrNull(row[5] ?? null, 'created_at'),
  }
}

function utf8(text: string): Buffer {
  return Buffer.from(text, 'utf8')
}

/** Postgres and MySQL: the page in one statement. */
export async function admissionKeys(
  ctx: SqlContext,
  query: AdmissionKeysQuery,
): Promise<AdmissionKeyPage> {
  const start = checkAdmissionKeysQuery(query)
  const p = new Params(ctx.dialect)
  const text = admissionKeysSql(start, {
    runs: ctx.tables.runs,
    keys: ctx.tables.admissionKeys,
    bind: (value) => p.add(value),
    byCodePoint: (column) => ctx.dialect.byCodePoint(column),
    useIndex: ctx.dialect.useIndex('cairn_runs_admission'),
    rowValues: false,
  })
  if (text === null) return { keys: [], nextCursor: null }
  const { rows } = await ctx.pool.query(p.statement(text))
  return toAdmissionKeyPage(start, rows)
}
