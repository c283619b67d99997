/** Reads of committed state: one statement each. */
import { checkCheckpointPage } from '@cairn/core/store-kit'
import type {
  CheckpointPage,
  CheckpointRecord,
  InboxMessage,
  RunRecord,
} from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { Params } from './params.ts'
import {
  checkpointColumns,
  messageColumns,
  runColumns,
  toCheckpointRecord,
  toInboxMessage,
  toRunRecord,
} from './row_mapping.ts'

export async function getRun(ctx: SqlContext, runId: string): Promise<RunRecord | null> {
  const p = new Params(ctx.dialect)
  const text = `SELECT ${runColumns('r')} FROM ${ctx.tables.runs} r WHERE r.id = ${p.add(runId)}`
  const { rows } = await ctx.pool.query(p.statement(text))
  return rows[0] === undefined ? null : toRunRecord(rows[0])
}

export async function loadCheckpoints(ctx: SqlContext, runId: string): Promise<CheckpointRecord[]> {
  const p = new Params(ctx.dialect)
  const text = `SELECT ${checkpointColumns('r', 'c')} FROM ${ctx.tables.runs} r
    JOIN ${ctx.tables.checkpoints} c ON c.run_key = r.key WHERE r.id = ${p.add(runId)} ORDER BY c.seq`
  const { rows } = await ctx.pool.query(p.statement(text))
  return rows.map((row) => toCheckpointRecord(row))
}

/** Checkpoints at seq >= page.fromSeq: one range of the (run_key, seq) primary key. */
export async function loadCheckpointPage(
  ctx: SqlContext,
  runId: string,
  page: CheckpointPage,
): Promise<CheckpointRecord[]> {
  checkCheckpointPage(page)
  const p = new Params(ctx.dialect)
  const text = `SELECT ${checkpointColumns('r', 'c')} FROM ${ctx.tables.runs} r
    JOIN ${ctx.tables.checkpoints} c ON c.run_key = r.key
    WHERE r.id = ${p.add(runId)} AND c.seq >= ${p.add(page.fromSeq)} ORDER BY c.seq LIMIT ${p.add(page.limit)}`
  const { rows } = await ctx.pool.query(p.statement(text))
  return rows.map((row) => toCheckpointRecord(row))
}

/**
 * The run's unconsumed messages in seq order: one range of the (run_key, seq) primary key.
 * Consumed rows in that range are skipped, not indexed apart: a turn reads the run's whole
 * history anyway (loadCheckpoints), of which each consumed message is one checkpoint.
 */
export async function loadInbox(
  ctx: SqlContext,
  runId: string,
  afterSeq: number,
): Promise<InboxMessage[]> {
  const p = new Params(ctx.dialect)
  // `m.seq >` bounds the range of the key (run_key, seq): consumed messages stay stored.
  const text = `SELECT ${messageColumns('r', 'm')} FROM ${ctx.tables.runs} r
    JOIN ${ctx.tables.messages} m ON m.run_key = r.key
    WHERE r.id = ${p.add(runId)} AND m.seq > ${p.add(afterSeq)} AND m.consumed_at IS NULL
    ORDER BY m.seq`
  const { rows } = await ctx.pool.query(p.statement(text))
  return rows.map((row) => toInboxMessage(row))
}

/** The stored runs among `runIds` (not empty), by id. */
export async function readRuns(
  ctx: SqlContext,
  session: SqlSession,
  runIds: readonly string[],
): Promise<Map<string, RunRecord>> {
  const p = new Params(ctx.dialect)
  const text = `SELECT ${runColumns('r')} FROM ${ctx.tables.runs} r
    WHERE ${ctx.dialect.inList(p, 'r.id', runIds, 'text')}`
  const { rows } = await session.query(p.statement(text))
  return new Map(rows.map((row) => toRunRecord(row)).map((run) => [run.id, run]))
}

export function checkpointKey(runId: string, seq: number): string {
  return JSON.stringify([runId, seq])
}
