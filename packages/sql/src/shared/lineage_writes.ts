/**
 * What a create writes besides the run row, in the batch's transaction right after its wave
 * (apply_batch.ts), for the creates that applied only (an `exists` writes nothing): the run's
 * tag and origin columns, its rows in the tag table, and its seed checkpoints (a fork's copied
 * outcomes). Kept out of the wave statements so batches without them run exactly the
 * statements they ran before migration 7: at most three statements more (seeds in chunks),
 * none when no applied create carries any.
 */
import type { CheckpointRecord, CreateRunOp, OpResult, StoreOp } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlType } from './dialect.ts'
import type { SqlSession } from './driver.ts'
import { LINEAGE_COLUMNS, hasLineage, lineageValues } from './lineage_columns.ts'
import { CHECKPOINT_COLUMNS, checkpointValues } from './row_mapping.ts'
import { Params } from './params.ts'

/** Seed rows per INSERT: MySQL binds at most 65535 values in one statement. */
const SEED_CHUNK = 1000

export function carriesLineage(op: StoreOp): boolean {
  return op.type === 'createRun' && (hasLineage(op.run) || (op.seed?.length ?? 0) > 0)
}

export async function writeLineage(
  ctx: SqlContext,
  session: SqlSession,
  ops: readonly StoreOp[],
  results: readonly OpResult[],
): Promise<void> {
  if (!ops.some(carriesLineage)) return
  const created = ops.filter(
    (op, i): op is CreateRunOp => carriesLineage(op) && results[i]?.status === 'applied',
  )
  const labelled = created.filter((op) => hasLineage(op.run))
  if (labelled.length > 0) await session.query(updateColumns(ctx, labelled))
  const tags = created.flatMap((op) => (op.run.tags ?? []).map((tag) => [tag, op.run.id]))
  if (tags.length > 0) await session.query(insertTags(ctx, tags))
  const seeds = created.flatMap((op) => (op.seed ?? []).map((cp) => seedRow(op.run.id, cp)))
  for (let at = 0; at < seeds.length; at += SEED_CHUNK) {
    await session.query(insertSeeds(ctx, seeds.slice(at, at + SEED_CHUNK)))
  }
}

const COLUMN_TYPES: ReadonlyArray<readonly [string, SqlType]> = [
  ['id', 'text'],
  ['tags', 'text'],
  ['origin_kind', 'text'],
  ['origin_run_id', 'text'],
  ['origin_from_seq', 'bigint'],
]

function updateColumns(ctx: SqlContext, ops: readonly CreateRunOp[]) {
  const p = new Params(ctx.dialect)
  const rows = ops.map((op) => [op.run.id, ...lineageValues(op.run)])
  const source = ctx.dialect.rowSource(p, 'v', COLUMN_TYPES, rows)
  const assign = (set: string) => LINEAGE_COLUMNS.map((c) => `${set}${c} = v.${c}`).join(', ')
  return p.statement(
    ctx.dialect.updateFrom(ctx.tables.runs, 'r', source, 'r.id = v.id', assign),
    true,
  )
}

function insertTags(ctx: SqlContext, rows: unknown[][]) {
  const p = new Params(ctx.dialect)
  const columns = [
    ['tag', 'text'],
    ['run_id', 'text'],
  ] as const
  const source = ctx.dialect.rowSource(p, 'v', columns, rows)
  const text = `INSERT INTO ${ctx.tables.runTags} (tag, run_created_at, run_id, run_key)
    SELECT v.tag, r.created_at, r.id, r.key FROM ${source} JOIN ${ctx.tables.runs} r ON r.id = v.run_id`
  return p.statement(text, true)
}

const SEED_COLUMNS: ReadonlyArray<readonly [string, SqlType]> = [
  ['run_id', 'text'],
  ...CHECKPOINT_COLUMNS,
]

function seedRow(runId: string, cp: CheckpointRecord): unknown[] {
  return [runId, ...checkpointValues(cp)]
}

function insertSeeds(ctx: SqlContext, rows: unknown[][]) {
  const p = new Params(ctx.dialect)
  const names = CHECKPOINT_COLUMNS.map(([name]) => name)
  const source = ctx.dialect.rowSource(p, 'v', SEED_COLUMNS, rows)
  const text = `INSERT INTO ${ctx.tables.checkpoints} (run_key, ${names.join(', ')})
    SELECT r.key, ${names.map((name) => `v.${name}`).join(', ')}
    FROM ${source} JOIN ${ctx.tables.runs} r ON r.id = v.run_id`
  return p.statement(text, true)
}
