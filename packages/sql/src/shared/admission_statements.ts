/**
 * The statements of singleton admission on Postgres and MySQL (admission_writes.ts), each for
 * every key or run of a wave at once: what a batch pays for admission is a few statements,
 * not a few per run. Placeholders are bound in text order (MySQL's are positional).
 */
import type { Admission } from '@cairn/core/contracts'
import { queuedWaitingOn, type AdmissionCounts } from '@cairn/core/store-kit'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { toSafeInteger } from './integers.ts'
import { Params } from './params.ts'

/** Statuses of a run of a key that is not over: queued, or holding a slot (blocked is stored `waiting`). */
const LIVE = "('queued', 'pending', 'running', 'waiting', 'parked')"
/** The live statuses that hold a slot of their key (LIVE but `queued`). */
export const ADMITTED_STATUSES = "('pending', 'running', 'waiting', 'parked')"

export interface Key {
  scope: string
  key: string
}

/** A key as one string: neither part holds a NUL (admission_check.ts), and it sorts by scope first. */
export function idOf(key: Key): string {
  return `${key.scope}\u0000${key.key}`
}

/**
 * Keys in the order every writer locks them: scope, then key, by code point — the order of
 * their UTF-8 bytes, which is how the lock statement sorts them (Postgres `COLLATE "C"`,
 * MySQL's VARBINARY), so two transactions never take two keys in opposite orders.
 */
export function lockOrder<K extends Key>(keys: Iterable<K>): K[] {
  const bytes = (k: Key) => Buffer.from(idOf(k), 'utf8')
  return [...keys].sort((a, b) => Buffer.compare(bytes(a), bytes(b)))
}

/** A key row's lock state: its limit and next queue number, as read FOR UPDATE. */
export interface KeyRow {
  limit: number
  nextSeq: number
}

/** `(scope, admission_key) IN ((…), …)` over `keys`. */
function keyIn(p: Params, keys: readonly Key[], prefix = ''): string {
  const rows = keys.map((k) => `(${p.add(k.scope)}, ${p.add(k.key)})`)
  return `(${prefix}scope, ${prefix}admission_key) IN (${rows.join(', ')})`
}

/** Inserts rows for keys that have none (in lock order), a key another writer just added left as it is. */
export async function insertKeys(
  ctx: SqlContext,
  session: SqlSession,
  admissions: readonly Admission[],
): Promise<void> {
  const p = new Params(ctx.dialect)
  const rows = lockOrder(admissions).map(
    (a) => `(${p.add(a.scope)}, ${p.add(a.key)}, ${p.add(a.limit)}, 0)`,
  )
  const text = `INSERT INTO ${ctx.tables.admissionKeys} (scope, admission_key, lim, next_seq)
    VALUES ${rows.join(', ')} ${ctx.dialect.ignoreDuplicate('scope')}`
  await session.query(p.statement(text, true))
}

/**
 * Writes one column of a locked key's row: its limit (`lim`, as the newest create that applied
 * gave it) or its next queue number (`next_seq`).
 */
export async function storeKeyColumn(
  ctx: SqlContext,
  session: SqlSession,
  key: Key,
  column: 'lim' | 'next_seq',
  value: number,
): Promise<void> {
  const p = new Params(ctx.dialect)
  const text = `UPDATE ${ctx.tables.admissionKeys} SET ${column} = ${p.add(value)}
    WHERE scope = ${p.add(key.scope)} AND admission_key = ${p.add(key.key)}`
  await session.query(p.statement(text, true))
}

/** Locks the rows of `keys` in lock order; what each holds (a key without a row is absent). */
export async function lockKeys(
  ctx: SqlContext,
  session: SqlSession,
  keys: readonly Key[],
): Promise<Map<string, KeyRow>> {
  const p = new Params(ctx.dialect)
  const order = `${ctx.dialect.byCodePoint('scope')}, ${ctx.dialect.byCodePoint('admission_key')}`
  const text = `SELECT scope, admission_key, lim, next_seq FROM ${ctx.tables.admissionKeys}
    WHERE ${keyIn(p, keys)} ORDER BY ${order} ${ctx.dialect.lockRows}`
  const found = new Map<string, KeyRow>()
  for (const row of (await session.query(p.statement(text))).rows)
    found.set(idOf({ scope: row[0] as string, key: row[1] as string }), {
      limit: toSafeInteger(row[2], 'lim'),
      nextSeq: toSafeInteger(row[3], 'next_seq'),
    })
  return found
}

/**
 * Admitted and queued runs of each of `keys`, as stored, leaving out the runs `except`: two
 * counts per key, each one index range of the runs' admission index (scope, key, status). Not
 * `(admission_scope, admission_key) IN (…)`: Postgres plans that as a range on the scope alone
 * and filters every run of the workflow, ended ones included — a cost that grew with history
 * (2 ms at 2,500 runs).
 */
export async function countKeys(
  ctx: SqlContext,
  session: SqlSession,
  keys: readonly Key[],
  except: ReadonlySet<string>,
): Promise<Map<string, AdmissionCounts>> {
  const p = new Params(ctx.dialect)
  const { runs } = ctx.tables
  // Bound in text order (`?` is positional): each count's exclusions, then the keys.
  const count = (statuses: string) => {
    const skip =
      except.size === 0 ? '' : `AND NOT ${ctx.dialect.inList(p, 'r.id', [...except], 'text')}`
    return `(SELECT COUNT(*) FROM ${runs} r WHERE r.admission_scope = k.scope
      AND r.admission_key = k.admission_key AND r.status IN ${statuses} ${skip})`
  }
  const admitted = count(ADMITTED_STATUSES)
  const queued = count(`('queued')`)
  const text = `SELECT k.scope, k.admission_key, ${admitted}, ${queued} FROM ${keySource(ctx, p, 'k', keys)}`
  const counts = new Map<string, AdmissionCounts>(keys.map((k) => [idOf(k), zero()]))
  for (const row of (await session.query(p.statement(text))).rows)
    counts.set(idOf({ scope: row[0] as string, key: row[1] as string }), {
      admitted: toSafeInteger(row[2], 'admitted'),
      queued: toSafeInteger(row[3], 'queued'),
    })
  return counts
}

/** `keys` as a row source `alias(scope, admission_key)`, its values bound in `p`. */
export function keySource(ctx: SqlContext, p: Params, alias: string, keys: readonly Key[]): string {
  return ctx.dialect.rowSource(
    p,
    alias,
    KEY_COLUMNS,
    keys.map((k) => [k.scope, k.key]),
  )
}

const KEY_COLUMNS = [
  ['scope', 'text'],
  ['admission_key', 'text'],
] as const

function zero(): AdmissionCounts {
  return { admitted: 0, queued: 0 }
}

/**
 * `runId` holds the key for `successor` to inherit: it is not terminal, or it already ended
 * `continued` to the successor (its finish may land in the same wave as the create).
 */
export async function holdsKey(
  ctx: SqlContext,
  session: SqlSession,
  runId: string,
  key: Key,
  successor: string,
): Promise<boolean> {
  const p = new Params(ctx.dialect)
  const text = `SELECT 1 FROM ${ctx.tables.runs}
    WHERE id = ${p.add(runId)} AND admission_scope = ${p.add(key.scope)}
    AND admission_key = ${p.add(key.key)}
    AND (status IN ${LIVE} OR (status = 'continued' AND continued_to = ${p.add(successor)}))`
  return (await session.query(p.statement(text))).rows.length > 0
}

/** Deletes runs a create inserted and admission refused (before their lineage is written). */
export async function deleteRuns(
  ctx: SqlContext,
  session: SqlSession,
  ids: readonly string[],
): Promise<void> {
  const p = new Params(ctx.dialect)
  const text = `DELETE FROM ${ctx.tables.runs} WHERE ${ctx.dialect.inList(p, 'id', ids, 'text')}`
  await session.query(p.statement(text, true))
}

/** A run to put in its key's queue at `seq`; `unclaim`: it was created with a claim. */
export interface QueuedRun {
  id: string
  key: Key
  seq: number
  unclaim: boolean
}

/** The runs wait in their keys' queues: not claimable, no lease. */
export async function queueRuns(
  ctx: SqlContext,
  session: SqlSession,
  runs: readonly QueuedRun[],
): Promise<void> {
  const p = new Params(ctx.dialect)
  const columns = [
    ['id', 'text'],
    ['waiting_on', 'text'],
    ['seq', 'bigint'],
    ['unclaim', 'bigint'],
  ] as const
  const rows = runs.map((r) => [r.id, queuedWaitingOn(r.key.key), r.seq, r.unclaim ? 1 : 0])
  const source = ctx.dialect.rowSource(p, 'v', columns, rows)
  // A claimed create was made running at epoch 1: a queued run holds no lease.
  const unclaimed = (column: string, value: string) =>
    `CASE WHEN v.unclaim = 1 THEN ${value} ELSE r.${column} END`
  const assign = (set: string) =>
    [
      `${set}status = 'queued'`,
      `${set}available_at = NULL`,
      `${set}waiting_on = v.waiting_on`,
      `${set}admission_seq = v.seq`,
      `${set}lease_owner = ${unclaimed('lease_owner', 'NULL')}`,
      `${set}lease_epoch = ${unclaimed('lease_epoch', '0')}`,
      `${set}turns = ${unclaimed('turns', '0')}`,
    ].join(', ')
  await session.query(
    p.statement(ctx.dialect.updateFrom(ctx.tables.runs, 'r', source, 'r.id = v.id', assign), true),
  )
}

/** The `count` oldest queued runs of `key`. */
export async function oldestQueued(
  ctx: SqlContext,
  session: SqlSession,
  key: Key,
  count: number,
): Promise<string[]> {
  const p = new Params(ctx.dialect)
  const text = `SELECT id FROM ${ctx.tables.runs} WHERE admission_scope = ${p.add(key.scope)}
    AND admission_key = ${p.add(key.key)} AND status = 'queued'
    ORDER BY admission_seq LIMIT ${p.add(count)}`
  return (await session.query(p.statement(text))).rows.map((row) => row[0] as string)
}

/**
 * Promoted: pending, claimable at `now`. How many were (a waiter cancelled meanwhile by a
 * cancel that did not name its key is skipped).
 */
export async function markPromoted(
  ctx: SqlContext,
  session: SqlSession,
  ids: readonly string[],
  now: number,
): Promise<number> {
  const p = new Params(ctx.dialect)
  const text = `UPDATE ${ctx.tables.runs} SET status = 'pending', available_at = ${p.add(now)},
    waiting_on = NULL, admission_seq = NULL, updated_at = ${p.add(now)}
    WHERE ${ctx.dialect.inList(p, 'id', ids, 'text')} AND status = 'queued'`
  return (await session.query(p.statement(text, true))).affected
}

/** The key each of `runIds` was admitted under (runs without one are absent). */
export async function readKeys(
  ctx: SqlContext,
  session: SqlSession,
  runIds: readonly string[],
): Promise<Map<string, Key>> {
  const keys = new Map<string, Key>()
  if (runIds.length === 0) return keys
  const p = new Params(ctx.dialect)
  const text = `SELECT id, admission_scope, admission_key FROM ${ctx.tables.runs}
    WHERE ${ctx.dialect.inList(p, 'id', runIds, 'text')} AND admission_scope IS NOT NULL`
  for (const row of (await session.query(p.statement(text))).rows)
    keys.set(row[0] as string, { scope: row[1] as string, key: row[2] as string })
  return keys
}
