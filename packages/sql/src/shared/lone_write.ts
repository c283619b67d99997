/**
 * A batch of one op that one statement writes whole — a plain create, save or finish — on a
 * writer whose wave is a transaction of several statements (MySQL, MariaDB): one autocommitted
 * statement instead of START, the runs' locking read, the write and COMMIT. A workflow that
 * starts, runs its steps one after the other and finishes sends one such batch for each: each
 * now costs one round trip and one commit, as on Postgres, where a one-wave batch is already
 * one statement.
 *
 * A save or a finish applies only while its fence holds — the run `running` at the fence's
 * epoch — and reads the run row with a lock as it does (a save's `SELECT … FOR UPDATE`, a
 * finish's UPDATE: the latest committed version, held until the statement commits); a create
 * is an INSERT that the run id's unique key refuses when the id is taken. So each writes
 * exactly when the wave would have applied the op. Any other case writes nothing, and the
 * batch is decided the usual way, with the same results as before:
 *
 * - no row written: the run is gone, or not running at that epoch (fenced; or, for a save,
 *   cancelled at that epoch, where a late outcome is still recorded — the wave decides it);
 * - a duplicate key: a create's id is taken (`exists`), or a record is stored at a save's seq.
 *   The failed statement is undone whole. A save then tries a second statement, the wave's
 *   overwrite of a `retrying` or `waiting` record under the same fence (a timer's outcome over
 *   its `waiting` record is written so at every wake); an outcome stored there (`conflict`)
 *   makes that one write nothing too.
 *
 * Lock order is the waves': the run, then the checkpoint. An op that carries anything else (a
 * consumed message, search attributes, step logs, a queue, an event wait, a notice to a
 * parent, a singleton key, lineage or seeded checkpoints) is not plain: those writes need the
 * batch's transaction.
 */
import type { CreateRunOp, FinishRunOp, SaveCheckpointOp, StoreOp } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlType } from './dialect.ts'
import type { SqlSession, SqlStatement } from './driver.ts'
import { carriesAdmission } from './admission_writes.ts'
import { touchesEventWaits } from './event_wait_writes.ts'
import { carriesLineage } from './lineage_writes.ts'
import {
  CREATE_TARGETS,
  OVERWRITABLE_CHECKPOINTS,
  SOURCE_COLUMNS,
  TRAILING_CREATE_COLUMNS,
  continues,
  type OpKind,
  leaseAssignments,
  noticeOf,
  sourceRow,
} from './op_columns.ts'
import { Params } from './params.ts'
import { CHECKPOINT_COLUMNS, checkpointValues } from './row_mapping.ts'

/** An op one statement writes whole. */
export type LoneOp = CreateRunOp | SaveCheckpointOp | FinishRunOp

/** True for a failure after which the batch is written the usual way (see ReadFirstTest). */
export type WriteUsualAfter = (error: unknown) => boolean

/** The batch's one op when one statement writes it whole; otherwise null. */
export function loneOp(ops: readonly StoreOp[]): LoneOp | null {
  if (ops.length !== 1) return null
  const op = ops[0] as StoreOp
  if (touchesEventWaits(op)) return null
  if (op.type === 'saveCheckpoint') return plainSave(op) ? op : null
  if (op.type === 'finishRun') return plainFinish(op) ? op : null
  if (op.type === 'createRun') return carriesLineage(op) || carriesAdmission(op) ? null : op
  return null
}

function plainSave(op: SaveCheckpointOp): boolean {
  return (
    op.consumes === undefined &&
    op.searchAttributes === undefined &&
    op.logs === undefined &&
    op.enqueue === undefined &&
    op.release === undefined
  )
}

function plainFinish(op: FinishRunOp): boolean {
  return noticeOf(op) === null && op.admission === undefined && op.releaseQueues === undefined
}

/** Params noting whether every value bound to an integer column is null or a safe integer. */
class CheckedParams extends Params {
  integral = true

  override add(value: unknown, type?: string): string {
    const integer = type === 'bigint' || type === 'int'
    if (integer && value !== null && !Number.isSafeInteger(value)) this.integral = false
    return super.add(value, type)
  }
}

/**
 * Writes `op` in one autocommitted statement on `pool` (a save meeting a record at its seq: a
 * second one, the overwrite): true when it applied; false when nothing was written (see above)
 * and the batch is to be written the usual way.
 */
export async function writeLone(
  ctx: SqlContext,
  pool: SqlSession,
  op: LoneOp,
  now: number,
  usualAfter: WriteUsualAfter,
): Promise<boolean> {
  const p = new CheckedParams(ctx.dialect)
  const statement =
    op.type === 'saveCheckpoint'
      ? saveStatement(ctx, p, op)
      : op.type === 'finishRun'
        ? finishStatement(ctx, p, op, now)
        : createStatement(ctx, p, op, now)
  // The usual path decides such an op in JavaScript or refuses it (`"1"` is not epoch 1); the
  // server would convert the value and apply it.
  if (!p.integral) return false
  const written = await attempt(pool, statement, usualAfter)
  if (written !== null || op.type !== 'saveCheckpoint') return written === true
  // A record at the save's seq: most often the position's own `waiting` or `retrying` one (a
  // timer, a retried step), which the save overwrites in a second statement.
  const overwrite = overwriteStatement(ctx, new CheckedParams(ctx.dialect), op)
  return (await attempt(pool, overwrite, usualAfter)) === true
}

/**
 * True when the statement wrote a row, false when it wrote none, null when it failed as
 * `usualAfter` says (a duplicate key, a statement too large to send): nothing written.
 */
async function attempt(
  pool: SqlSession,
  statement: SqlStatement,
  usualAfter: WriteUsualAfter,
): Promise<boolean | null> {
  try {
    return (await pool.query(statement)).affected >= 1
  } catch (error) {
    if (usualAfter(error)) return null
    throw error
  }
}

const CHECKPOINT_NAMES = CHECKPOINT_COLUMNS.map(([name]) => name).join(', ')

function saveStatement(ctx: SqlContext, p: Params, op: SaveCheckpointOp): SqlStatement {
  const { dialect, tables } = ctx
  const values = checkpointValues(op.checkpoint).map((value, i) =>
    p.add(value, CHECKPOINT_COLUMNS[i]?.[1]),
  )
  const text = `INSERT INTO ${tables.checkpoints} (run_key, ${CHECKPOINT_NAMES})
    SELECT r.key, ${values.join(', ')} FROM ${tables.runs} r
    WHERE r.id = ${p.add(op.fence.runId, 'text')} AND r.lease_epoch = ${p.add(op.fence.epoch, 'bigint')}
      AND r.status = 'running' ${dialect.lockRows}`
  return p.statement(text, true)
}

/**
 * The wave's overwrite of a `retrying` or `waiting` record (locked_wave_writer.ts) joined to its
 * run by id: a multi-table UPDATE reads the run row with a lock (tested), so it waits for a
 * concurrent cancel or takeover and then writes nothing. It counts the one checkpoint row
 * (the run row, only read, is not counted): matched with mysql2's FOUND_ROWS, changed without
 * it — a save identical to the stored record then counts none and goes the usual way, which
 * applies it. None at all when it does not apply (an outcome at that seq, another epoch): the
 * usual path decides.
 */
export function overwriteStatement(ctx: SqlContext, p: Params, op: SaveCheckpointOp): SqlStatement {
  const { tables } = ctx
  const [seq, ...rest] = checkpointValues(op.checkpoint)
  const assigned = CHECKPOINT_COLUMNS.slice(1).map(
    ([name, type], i) => `c.${name} = ${p.add(rest[i], type)}`,
  )
  const text = `UPDATE ${tables.checkpoints} c JOIN ${tables.runs} r ON r.key = c.run_key
    SET ${assigned.join(', ')}
    WHERE r.id = ${p.add(op.fence.runId, 'text')} AND r.lease_epoch = ${p.add(op.fence.epoch, 'bigint')}
      AND r.status = 'running' AND c.seq = ${p.add(seq, 'bigint')}
      AND c.status IN ${OVERWRITABLE_CHECKPOINTS}`
  return p.statement(text, true)
}

/** Each source column's type and position in an op's source row (sourceRow). */
type SourcePositions = ReadonlyMap<string, { type: SqlType; i: number }>

function sourcePositions(columns: (typeof SOURCE_COLUMNS)[OpKind]): SourcePositions {
  return new Map(columns.map(([name, type], i) => [name, { type, i }]))
}

const LEASE_SOURCE = sourcePositions(SOURCE_COLUMNS.lease)

/** Binds the value of a source column of `row` by name, as the wave's source would read it. */
function binder(p: Params, positions: SourcePositions, row: readonly unknown[]) {
  return (column: string) => {
    const { type, i } = positions.get(column) as { type: SqlType; i: number }
    return p.add(row[i], type)
  }
}

/**
 * The wave's UPDATE of a finish (locked_wave_writer.ts) as a single-table UPDATE by run id, its
 * source columns bound in place: on MariaDB a multi-table UPDATE over a one-row JSON_TABLE
 * spends more preparing its temporary tables than writing the row.
 */
function finishStatement(ctx: SqlContext, p: Params, op: FinishRunOp, now: number): SqlStatement {
  const { tables } = ctx
  const continued = continues(op)
  const bound = binder(p, LEASE_SOURCE, sourceRow(op, 0, now))
  const assignments = leaseAssignments(bound, 'r', '', () => p.add(now, 'bigint'), continued)
  const text = `UPDATE ${tables.runs} r SET ${assignments}
    WHERE r.id = ${p.add(op.fence.runId, 'text')} AND r.lease_epoch = ${p.add(op.fence.epoch, 'bigint')}
      AND r.status = 'running'`
  return p.statement(text, true)
}

const CREATE_SOURCE = sourcePositions(SOURCE_COLUMNS.create)
const CREATE_COLUMNS = [...CREATE_TARGETS, ...TRAILING_CREATE_COLUMNS.map((c) => [c, c] as const)]

/** The wave's INSERT of a create (locked_wave_writer.ts) with its values bound in place. */
function createStatement(ctx: SqlContext, p: Params, op: CreateRunOp, now: number): SqlStatement {
  const { tables } = ctx
  const bound = binder(p, CREATE_SOURCE, sourceRow(op, 0, now))
  const values = CREATE_COLUMNS.map(([, from]) => bound(from))
  const text = `INSERT INTO ${tables.runs} (${CREATE_COLUMNS.map(([column]) => column).join(', ')})
    VALUES (${values.join(', ')})`
  return p.statement(text, true)
}
