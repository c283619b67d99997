/**
 * The portable WaveWriter: lock, decide, write. For servers where one statement cannot both
 * write many rows and report which rows it wrote (MySQL and MariaDB: no RETURNING on UPDATE,
 * no data-modifying CTEs), and where a read-then-write without a lock loses updates (MySQL's
 * REPEATABLE READ). Per wave, inside the batch's transaction:
 *
 * 1. one locking read of every run the wave touches (in key order, so two batches' waves
 *    cannot deadlock on each other; the targets of its finishes' and cancels' notices
 *    included), one of the checkpoints its saves target, and (when it delivers messages or
 *    notices with dedupe ids) one of the messages holding those ids;
 * 2. each op is decided in JavaScript against that locked state, by the same rules the
 *    results are built with (op_results.ts);
 * 3. only the ops that apply are written, one multi-row statement per kind (deliveries and
 *    notices together: locked_inbox.ts), each still conditioned on the fence. The locks keep
 *    every decision true until commit; the one thing a lock cannot hold is a row that does
 *    not exist yet: a concurrent insert of the same run id or checkpoint makes an insert fail
 *    on its unique key, a retryable failure, and the whole batch is tried again (reading the
 *    row the other transaction wrote).
 *
 * Cost: two reads and one write per kind per wave, plus BEGIN/COMMIT (the Postgres writer
 * does a wave in one statement). Runs against Postgres too: the package's tests run the
 * conformance suite through it.
 *
 * Saves without the checkpoint read (`readFirstAfter` given: MySQL, MariaDB). Most saves write
 * a position nothing was stored at, so the wave first assumes none is there: no checkpoint
 * read, and the saves' INSERT is the wave's first write. If a checkpoint was there after all
 * (a step retried over its `retrying` record, a queued step's `waiting` one, a concurrent
 * insert), that INSERT fails on the primary key and writes nothing — on these servers a
 * failed statement is undone alone and the transaction goes on — and the wave is decided
 * again from the locked checkpoints, as without the option. So is a wave whose one INSERT
 * the client refuses to send (larger than the server's packet limit): read first, its saves
 * go out as two smaller statements (new ones, overwrites) and conflicting ones not at all, as
 * before. One round trip less for a plain save wave; one more, and its saves' payloads sent
 * twice, for a wave that overwrites. Not on Postgres, where a failed statement aborts the
 * whole transaction.
 *
 * A suspend's `available_at` is decided in its UPDATE (leaseAssignments: the run's inbox_seq
 * against what the turn saw); the result repeats that decision from the locked row, which
 * the lock keeps true until commit.
 */
import type { CheckpointRecord, DeliverMessageOp, StoreOp } from '@cairn/core/contracts'
import { checkpointsAt } from './checkpoints_at.ts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import {
  acceptMessages,
  countMessages,
  dedupeKey,
  insertMessages,
  lockDedupes,
  lockRuns,
  type InboxWrites,
  type LockedRun,
} from './locked_inbox.ts'
import { writeLone, type LoneOp } from './lone_write.ts'
import {
  CONSUME_COLUMNS,
  OVERWRITABLE_CHECKPOINTS,
  CONTINUED_COLUMN,
  CREATE_TARGETS,
  TRAILING_CREATE_COLUMNS,
  continues,
  createsTrailing,
  SOURCE_COLUMNS,
  TERMINAL_STATUSES,
  cancelAssignments,
  consumeRows,
  kindOf,
  leaseAssignments,
  noticeOf,
  runIdOf,
  sourceRow,
  type OpKind,
} from './op_columns.ts'
import { resultOf } from './op_results.ts'
import { Params } from './params.ts'
import { checkpointKey } from './reads.ts'
import { CHECKPOINT_COLUMNS } from './row_mapping.ts'
import type { PlannedOp, Wave } from './wave_plan.ts'
import type { Observation, WaveWriter } from './wave_writer.ts'

interface LockedState {
  runs: Map<string, LockedRun>
  checkpoints: Map<string, CheckpointRecord>
  /** Seqs of the messages holding the wave's dedupe ids, by dedupeKey. */
  dedupes: Map<string, number>
}

/**
 * True for a failure of the saves' first INSERT after which the wave is decided again from a
 * read of the checkpoints: a duplicate key (MySQL: ER_DUP_ENTRY), or a statement refused
 * before it was sent. Either leaves the transaction as it was.
 */
export type ReadFirstTest = (error: unknown) => boolean

export class LockedWaveWriter implements WaveWriter {
  readonly guardsEndKeys = false
  readonly admitsInWave = false
  readonly selfContained = false
  readonly writeAlone?: (pool: SqlSession, op: LoneOp, now: number) => Promise<boolean>
  readonly #ctx: SqlContext
  readonly #readFirstAfter: ReadFirstTest | null

  /**
   * `readFirstAfter`: saves are first written without reading the checkpoints (see above),
   * and a lone create, save or finish in one autocommitted statement (lone_write.ts); only for a server that
   * undoes a failed statement alone, keeping the transaction.
   */
  constructor(ctx: SqlContext, readFirstAfter: ReadFirstTest | null = null) {
    this.#ctx = ctx
    this.#readFirstAfter = readFirstAfter
    // The same servers undo the failed statement of an autocommitted lone op whole.
    if (readFirstAfter !== null)
      this.writeAlone = (pool, op, now) => writeLone(ctx, pool, op, now, readFirstAfter)
  }

  /** Stores using this writer have no push: `wake` is ignored. */
  async write(session: SqlSession, wave: Wave, now: number): Promise<Observation[]> {
    const ctx = this.#ctx
    const notified = wave.flatMap(({ op }) => noticeOf(op)?.runId ?? [])
    const runs = await lockRuns(ctx, session, [...wave.map(({ op }) => runIdOf(op)), ...notified])
    const dedupes = await lockDedupes(ctx, session, wave, runs)
    if (this.#readFirstAfter !== null && wave.some(({ op }) => op.type === 'saveCheckpoint')) {
      const assumed = { runs, checkpoints: new Map(), dedupes }
      const written = await writeWave(ctx, session, wave, assumed, now, this.#readFirstAfter)
      if (written !== null) return written
    }
    const checkpoints = await lockCheckpoints(ctx, session, wave, runs)
    const decided = await writeWave(ctx, session, wave, { runs, checkpoints, dedupes }, now, null)
    // Read first, nothing is assumed: a failed statement throws, it never comes back as null.
    if (decided === null) throw new Error('a read-first wave came back undecided')
    return decided
  }
}

/**
 * Decides the wave's ops against `state` and writes those that apply. With `readFirstAfter`,
 * the state's checkpoints are assumed (none): null when the saves' INSERT failed as it says
 * (it met a stored checkpoint, or was not sent), having written nothing.
 */
async function writeWave(
  ctx: SqlContext,
  session: SqlSession,
  wave: Wave,
  state: LockedState,
  now: number,
  readFirstAfter: ReadFirstTest | null,
): Promise<Observation[] | null> {
  const seen = wave.map(({ op }) => observed(op, state))
  const applies = wave.map(({ op }, i) => decide(op, state, seen[i] as Observation))
  const inbox = acceptMessages(wave, applies, state.runs, state.dedupes)
  const applying = wave.filter((_, i) => applies[i])
  const written = await writeApplying(ctx, session, applying, state, inbox, now, readFirstAfter)
  if (!written) return null
  return wave.map(({ op, index }, i) =>
    applies[i] ? applied(op, index, state, inbox, now) : (seen[i] as Observation),
  )
}

async function lockCheckpoints(
  ctx: SqlContext,
  session: SqlSession,
  wave: Wave,
  runs: ReadonlyMap<string, LockedRun>,
): Promise<Map<string, CheckpointRecord>> {
  // A save whose run is not there meets no checkpoint (its result is fenced, current null).
  const places = wave.flatMap(({ op }) => {
    if (op.type !== 'saveCheckpoint') return []
    const run = runs.get(op.fence.runId)
    return run === undefined
      ? []
      : [{ runKey: run.key, runId: op.fence.runId, seq: op.checkpoint.seq }]
  })
  return places.length === 0 ? new Map() : checkpointsAt(ctx, session, places, true)
}

/**
 * What the op meets: its run's fence and, for a save, the checkpoint at its seq. A delivery
 * whose dedupe id the run already accepted is settled here: it changes nothing.
 */
function observed(op: StoreOp, state: LockedState): Observation {
  const seen = fenceObserved(op, state)
  const earlier = op.type === 'deliverMessage' ? duplicateOf(op, state) : null
  if (earlier === null) return seen
  return { applied: true, epoch: null, delivered: { seq: earlier, duplicate: true } }
}

function fenceObserved(op: StoreOp, state: LockedState): Observation {
  const run = state.runs.get(runIdOf(op))
  const checkpoint =
    op.type === 'saveCheckpoint'
      ? (state.checkpoints.get(checkpointKey(op.fence.runId, op.checkpoint.seq)) ?? null)
      : null
  const fence = run === undefined ? null : { status: run.status, epoch: run.epoch }
  // An existing run is not read whole here: apply_batch reads it when it builds `exists`.
  return { applied: false, fence, run: null, checkpoint }
}

/** The op applies when the state it meets does not explain a refusal (op_results.ts). */
function decide(op: StoreOp, state: LockedState, seen: Observation): boolean {
  if (op.type === 'createRun') return !state.runs.has(op.run.id)
  return resultOf(op, seen) === null
}

/**
 * The seq the run accepted the delivery's dedupe id under: its receipt, even when the run has
 * finished since (only a new message to a terminal run is refused).
 */
function duplicateOf(op: DeliverMessageOp, state: LockedState): number | null {
  const { runId, dedupeId } = op.message
  const run = state.runs.get(runId)
  if (dedupeId === null || run === undefined) return null
  return state.dedupes.get(dedupeKey(run.key, dedupeId)) ?? null
}

/** What an applying op (at batch index `index`) did, as the statements below write it. */
function applied(
  op: StoreOp,
  index: number,
  state: LockedState,
  inbox: InboxWrites,
  now: number,
): Observation {
  const run = state.runs.get(runIdOf(op))
  if (run === undefined) return { applied: true, epoch: null }
  switch (op.type) {
    case 'cancelRun':
      return { applied: true, epoch: run.epoch + 1 }
    case 'suspendRun':
      return {
        applied: true,
        epoch: null,
        availableAt: run.inboxSeq > op.inboxSeen ? now : op.wakeAt,
      }
    case 'deliverMessage': {
      const seq = inbox.seqs.get(index) ?? run.inboxSeq + 1
      return { applied: true, epoch: null, delivered: { seq, duplicate: false } }
    }
    default:
      return { applied: true, epoch: null }
  }
}

/**
 * Saves first (they were decided on the run as it was before this wave's run writes). With
 * `readFirstAfter`, the saves' INSERT comes first of all: false when it failed as that says
 * (nothing of the wave written).
 */
async function writeApplying(
  ctx: SqlContext,
  session: SqlSession,
  ops: readonly PlannedOp[],
  state: LockedState,
  inbox: InboxWrites,
  now: number,
  readFirstAfter: ReadFirstTest | null,
): Promise<boolean> {
  const byKind = (kind: OpKind) => ops.filter(({ op }) => kindOf(op) === kind)
  const saves = byKind('save')
  const isNew = ({ op }: PlannedOp) =>
    op.type === 'saveCheckpoint' &&
    !state.checkpoints.has(checkpointKey(op.fence.runId, op.checkpoint.seq))
  const statements = [
    insertCheckpoints(ctx, saves.filter(isNew), state, now),
    overwriteCheckpoints(
      ctx,
      saves.filter((planned) => !isNew(planned)),
      state,
      now,
    ),
    consumeMessages(ctx, saves, state, now),
    insertRuns(ctx, byKind('create'), now),
    updateRuns(ctx, byKind('lease'), state, now, 'lease'),
    updateRuns(ctx, byKind('cancel'), state, now, 'cancel'),
    countMessages(ctx, inbox, now),
    insertMessages(ctx, inbox, now),
  ]
  const [inserts, ...rest] = statements
  if (inserts !== null && inserts !== undefined) {
    try {
      await session.query(inserts)
    } catch (error) {
      if (readFirstAfter?.(error) === true) return false
      throw error
    }
  }
  for (const statement of rest) if (statement !== null) await session.query(statement)
  return true
}

type Columns = ReadonlyArray<readonly [name: string, type: 'text' | 'bigint' | 'int']>

/** The kind's source rows, with the locked run's key in front. */
function keyedSource(
  p: Params,
  ctx: SqlContext,
  kind: OpKind,
  ops: readonly PlannedOp[],
  state: LockedState,
  now: number,
  /** A trailing column to leave out of the source. */
  without: string | null = null,
): string {
  const kept = SOURCE_COLUMNS[kind].filter(([name]) => name !== without)
  const columns: Columns = [['run_key', 'bigint'], ...kept]
  const rows = ops.map(({ op, index }) => [
    state.runs.get(runIdOf(op))?.key,
    ...sourceRow(op, index, now),
  ])
  return ctx.dialect.rowSource(p, 'v', columns, rows)
}

const CHECKPOINT_NAMES = CHECKPOINT_COLUMNS.map(([name]) => name)

function insertCheckpoints(
  ctx: SqlContext,
  ops: readonly PlannedOp[],
  state: LockedState,
  now: number,
) {
  if (ops.length === 0) return null
  const p = new Params(ctx.dialect)
  const source = keyedSource(p, ctx, 'save', ops, state, now)
  const text = `INSERT INTO ${ctx.tables.checkpoints} (run_key, ${CHECKPOINT_NAMES.join(', ')})
    SELECT v.run_key, ${CHECKPOINT_NAMES.map((name) => `v.${name}`).join(', ')} FROM ${source}`
  return p.statement(text)
}

function overwriteCheckpoints(
  ctx: SqlContext,
  ops: readonly PlannedOp[],
  state: LockedState,
  now: number,
) {
  if (ops.length === 0) return null
  const p = new Params(ctx.dialect)
  const source = keyedSource(p, ctx, 'save', ops, state, now)
  const on = `c.run_key = v.run_key AND c.seq = v.seq AND c.status IN ${OVERWRITABLE_CHECKPOINTS}`
  const assign = (set: string) =>
    CHECKPOINT_NAMES.slice(1)
      .map((name) => `${set}${name} = v.${name}`)
      .join(', ')
  return p.statement(ctx.dialect.updateFrom(ctx.tables.checkpoints, 'c', source, on, assign))
}

/**
 * Keys in batch order: a batch's runs sit together in the checkpoint index. The links (parent,
 * predecessor), the priority, the singleton key and the queue are written only by a statement
 * creating a run that has one (the columns default to NULL and 0): on MariaDB the more
 * JSON_TABLE columns, NULL as they are for top-level runs, measured 10–20% of a 20-create
 * INSERT.
 */
function insertRuns(ctx: SqlContext, ops: readonly PlannedOp[], now: number) {
  if (ops.length === 0) return null
  const p = new Params(ctx.dialect)
  // The trailing columns (links, priority, key, queue) only when a create writes one of them.
  const trailing = ops.some(({ op }) => createsTrailing(op))
  const columns = trailing
    ? SOURCE_COLUMNS.create
    : SOURCE_COLUMNS.create.filter(([name]) => !TRAILING_CREATE_COLUMNS.includes(name))
  // Rows keep every value: the source reads only its columns' (by position, leading ones).
  const rows = ops.map(({ op, index }) => sourceRow(op, index, now))
  const source = ctx.dialect.rowSource(p, 'v', columns, rows)
  const targets = [...CREATE_TARGETS, ...(trailing ? TRAILING_CREATE_COLUMNS.map(self) : [])]
  const text = `INSERT INTO ${ctx.tables.runs} (${targets.map(([column]) => column).join(', ')})
    SELECT ${targets.map(([, from]) => `v.${from}`).join(', ')} FROM ${source} ORDER BY v.ord`
  return p.statement(text)
}

const self = (column: string) => [column, column] as const

function updateRuns(
  ctx: SqlContext,
  ops: readonly PlannedOp[],
  state: LockedState,
  now: number,
  kind: 'lease' | 'cancel',
) {
  if (ops.length === 0) return null
  const p = new Params(ctx.dialect)
  // A continued finish's column only when the statement holds one (trailing, so left out).
  const continued = ops.some(({ op }) => continues(op))
  const source = keyedSource(p, ctx, kind, ops, state, now, continued ? null : CONTINUED_COLUMN)
  // One placeholder per use: `?` cannot be repeated (the source's placeholder comes first).
  const at = () => p.add(now)
  const on =
    kind === 'lease'
      ? `r.key = v.run_key AND r.lease_epoch = v.epoch AND r.status = 'running'`
      : `r.key = v.run_key AND r.status NOT IN ${TERMINAL_STATUSES}`
  const assign = (set: string) =>
    kind === 'lease'
      ? leaseAssignments('v', 'r', set, at, continued)
      : cancelAssignments('v', 'r', set, at)
  return p.statement(ctx.dialect.updateFrom(ctx.tables.runs, 'r', source, on, assign))
}

/** Messages consumed by the applying saves (those with `consumes`); written after them. */
function consumeMessages(
  ctx: SqlContext,
  saves: readonly PlannedOp[],
  state: LockedState,
  now: number,
) {
  const rows = consumeRows(saves.map(({ op }) => op))
  if (rows.length === 0) return null
  const p = new Params(ctx.dialect)
  const columns: Columns = [['run_key', 'bigint'], ...CONSUME_COLUMNS]
  const keyed = rows.map((row) => [state.runs.get(row[0] as string)?.key, ...row])
  const source = ctx.dialect.rowSource(p, 'v', columns, keyed)
  const on = 'm.run_key = v.run_key AND m.seq = v.message AND m.consumed_at IS NULL'
  const assign = (set: string) => `${set}consumed_at = ${p.add(now)}`
  return p.statement(ctx.dialect.updateFrom(ctx.tables.messages, 'm', source, on, assign))
}
