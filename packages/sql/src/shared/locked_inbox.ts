/**
 * Inbox writes of the portable writer (locked_wave_writer.ts): the messages a wave accepts —
 * its deliveries and the notices its applying finishes and cancels carry (a child telling its
 * parent) — numbered on the locked runs, then written as one UPDATE counting them on their
 * runs and one INSERT storing them. Several notices to one run (children of one parent
 * finishing in one batch) take its next seqs in batch order; the wave plan keeps every other
 * write of that run's row out of the wave, so the locked `inbox_seq` is the one they follow.
 */
import { isTerminalStatus } from '@cairn/core'
import type { MessageToDeliver, RunStatus } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlSession, SqlStatement } from './driver.ts'
import { toSafeInteger } from './integers.ts'
import {
  SOURCE_COLUMNS,
  TERMINAL_STATUSES,
  deliverAssignments,
  messageRow,
  noticeOf,
} from './op_columns.ts'
import { Params } from './params.ts'
import type { Wave } from './wave_plan.ts'

/** What the inbox writes need of a locked run. */
export interface InboxRun {
  key: number
  status: RunStatus
  inboxSeq: number
  /** The names that wake the run while it waits (wake_on.ts); null: any. */
  wakeOn: string | null
}

/** A run as the portable writer locks it: InboxRun and the lease epoch its fence is checked at. */
export interface LockedRun extends InboxRun {
  epoch: number
}

/**
 * Locks the runs of `ids` (once each, in key order, so two transactions locking runs never
 * take them in opposite orders) and reads what fences and inbox writes need.
 */
export async function lockRuns(
  ctx: SqlContext,
  session: SqlSession,
  ids: readonly string[],
): Promise<Map<string, LockedRun>> {
  const { dialect, tables } = ctx
  const p = new Params(dialect)
  const text = `SELECT r.key, r.id, r.status, r.lease_epoch, r.inbox_seq, r.wake_on, r.wake_epoch
    FROM ${tables.runs} r
    WHERE ${dialect.inList(p, 'r.id', [...new Set(ids)], 'text')} ORDER BY r.key ${dialect.lockRows}`
  return lockedRuns((await session.query(p.statement(text))).rows)
}

/**
 * Locked runs by id from rows of `key, id, status, lease_epoch, inbox_seq, wake_on,
 * wake_epoch` (lockRuns' columns; a caller locking them in a statement of its own).
 */
export function lockedRuns(rows: readonly unknown[][]): Map<string, LockedRun> {
  return new Map(
    rows.map(([key, id, status, epoch, inboxSeq, wakeOn, wakeEpoch]) => [
      id as string,
      {
        key: toSafeInteger(key, 'key'),
        status: status as RunStatus,
        epoch: toSafeInteger(epoch, 'lease_epoch'),
        inboxSeq: toSafeInteger(inboxSeq, 'inbox_seq'),
        wakeOn: currentWakeOn(wakeOn, wakeEpoch, epoch),
      },
    ]),
  )
}

/** A run's wake_on, when its current lease epoch wrote it; null (any message wakes) otherwise. */
function currentWakeOn(wakeOn: unknown, wakeEpoch: unknown, epoch: unknown): string | null {
  if (wakeOn === null || wakeOn === undefined || wakeEpoch === null || wakeEpoch === undefined)
    return null
  return toSafeInteger(wakeEpoch, 'wake_epoch') === toSafeInteger(epoch, 'lease_epoch')
    ? (wakeOn as string)
    : null
}

interface Accepted {
  runKey: number
  seq: number
  /** The batch index of the delivery, or of the op carrying the notice. */
  ord: number
  message: MessageToDeliver
}

export interface InboxWrites {
  messages: Accepted[]
  /** Messages accepted per run key. */
  added: Map<number, number>
  /** Run keys accepting a message their wake_on names (or with no wake_on). */
  named: Set<number>
  /** The seq of each applying delivery, by its batch index. */
  seqs: Map<number, number>
}

export function dedupeKey(runKey: number, dedupeId: string): string {
  return JSON.stringify([runKey, dedupeId])
}

/**
 * The messages already holding the dedupe ids the wave's deliveries and notices carry. Read
 * after the runs are locked: every delivery locks its run first, so no other one can add such
 * a message until this transaction ends, and this read (a statement of its own) sees every
 * one committed before.
 */
export async function lockDedupes(
  ctx: SqlContext,
  session: SqlSession,
  wave: Wave,
  runs: ReadonlyMap<string, InboxRun>,
): Promise<Map<string, number>> {
  const p = new Params(ctx.dialect)
  const places = wave.flatMap(({ op }) => {
    const message = op.type === 'deliverMessage' ? op.message : noticeOf(op)
    if (message === null || message.dedupeId === null) return []
    const key = runs.get(message.runId)?.key
    return key === undefined ? [] : [`(${p.add(key)}, ${p.add(message.dedupeId)})`]
  })
  if (places.length === 0) return new Map()
  const text = `SELECT m.run_key, m.dedupe_id, m.seq FROM ${ctx.tables.messages} m
    WHERE (m.run_key, m.dedupe_id) IN (${places.join(', ')}) ${ctx.dialect.lockRows}`
  const { rows } = await session.query(p.statement(text))
  return new Map(
    rows.map(([key, dedupeId, seq]) => [
      dedupeKey(toSafeInteger(key, 'run_key'), dedupeId as string),
      toSafeInteger(seq, 'seq'),
    ]),
  )
}

/**
 * The messages the applying ops of the wave put into inboxes, in batch order. A delivery that
 * applies is accepted (its refusals and duplicates were decided before); a notice is accepted
 * by the deliverMessage rules, and skipped when its target is unknown or terminal or already
 * holds its dedupe id (stored, or accepted earlier in the wave).
 */
export function acceptMessages(
  wave: Wave,
  applies: readonly boolean[],
  runs: ReadonlyMap<string, InboxRun>,
  dedupes: ReadonlyMap<string, number>,
): InboxWrites {
  const inbox: InboxWrites = { messages: [], added: new Map(), named: new Set(), seqs: new Map() }
  const taken = new Set<string>()
  wave.forEach(({ op, index }, i) => {
    if (!applies[i]) return
    const message = op.type === 'deliverMessage' ? op.message : noticeOf(op)
    const run = message === null ? undefined : runs.get(message.runId)
    if (message === null || run === undefined || isTerminalStatus(run.status)) return
    const dedupe = message.dedupeId === null ? null : dedupeKey(run.key, message.dedupeId)
    if (dedupe !== null && (dedupes.has(dedupe) || taken.has(dedupe))) return
    if (dedupe !== null) taken.add(dedupe)
    const added = (inbox.added.get(run.key) ?? 0) + 1
    inbox.added.set(run.key, added)
    if (run.wakeOn === null || run.wakeOn.includes(` ${message.name} `)) inbox.named.add(run.key)
    const seq = run.inboxSeq + added
    inbox.messages.push({ runKey: run.key, seq, ord: index, message })
    if (op.type === 'deliverMessage') inbox.seqs.set(index, seq)
  })
  return inbox
}

/**
 * The accepted messages counted on their runs (`inbox_seq + added`), waking waiting ones they
 * name. `p`: the Params to bind into (a grouped write's, write_group.ts).
 */
export function countMessages(
  ctx: SqlContext,
  inbox: InboxWrites,
  now: number,
  p = new Params(ctx.dialect),
): SqlStatement | null {
  if (inbox.added.size === 0) return null
  const columns = [
    ['run_key', 'bigint'],
    ['added', 'bigint'],
    ['named', 'int'],
  ] as const
  const rows = [...inbox.added].map(([key, added]) => [key, added, inbox.named.has(key) ? 1 : 0])
  const source = ctx.dialect.rowSource(p, 'v', columns, rows)
  // One placeholder per use: `?` cannot be repeated (the source's placeholder comes first).
  const at = () => p.add(now)
  // The keys again as a list, bound after the source (ON follows it in MySQL's text): a
  // planner estimates it well, where the source looks like 100 rows to Postgres.
  const keys = ctx.dialect.inList(p, 'r.key', [...inbox.added.keys()], 'bigint')
  const on = `r.key = v.run_key AND ${keys} AND r.status NOT IN ${TERMINAL_STATUSES}`
  // Decided on the locked row's wake_on, read in this transaction (lockState).
  const assign = (set: string) => deliverAssignments('r', set, at, 'v.added', 'v.named = 1')
  return p.statement(ctx.dialect.updateFrom(ctx.tables.runs, 'r', source, on, assign))
}

/** The accepted messages, under the seqs decided on the locked runs (`p` as countMessages). */
export function insertMessages(
  ctx: SqlContext,
  inbox: InboxWrites,
  now: number,
  p = new Params(ctx.dialect),
): SqlStatement | null {
  if (inbox.messages.length === 0) return null
  const acceptedAt = p.add(now) // bound first: it comes first in the text (`?` is positional)
  const columns = [['run_key', 'bigint'], ['seq', 'bigint'], ...SOURCE_COLUMNS.deliver] as const
  const rows = inbox.messages.map(({ runKey, seq, ord, message }) => [
    runKey,
    seq,
    ...messageRow(ord, message),
  ])
  const source = ctx.dialect.rowSource(p, 'v', columns, rows)
  const text = `INSERT INTO ${ctx.tables.messages} (run_key, seq, kind, name, dedupe_id, payload, accepted_at)
    SELECT v.run_key, v.seq, v.kind, v.name, v.dedupe_id, v.payload, ${acceptedAt} FROM ${source}`
  return p.statement(text)
}
