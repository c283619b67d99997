/**
 * applyBatch, written once: validate, cut the batch into waves (wave_plan.ts), let the
 * dialect's writer apply each wave, and build the results from what it saw (op_results.ts).
 *
 * A one-wave batch on a self-contained writer is a single autocommitted statement: one round
 * trip; so is a batch of one plain create, save or finish on a writer that offers `writeAlone`
 * (lone_write.ts). Anything else is BEGIN, one writer call per wave, COMMIT. Writers report the fence an
 * op was checked against, not the stored rows a refusal returns (`exists`, `conflict`: the
 * retry path); those are read right after their wave, before a later wave of the batch could
 * change them. Event wait rows riding on a wave's ops are written right after it
 * (event_wait_writes.ts), and so are a create's tags, origin and seed (lineage_writes.ts);
 * search attributes and step logs after the last wave (attribute_writes.ts,
 * step_log_writes.ts).
 */
import { StoreFailureError } from '@cairn/core'
import type { CheckpointRecord, OpResult, RunRecord, StoreOp } from '@cairn/core/contracts'
import type { SqlContext, WakeContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { AdmissionPass, carriesAdmission, releasedKey } from './admission_writes.ts'
import { settleKeys } from './admission_settle.ts'
import type { Key } from './admission_statements.ts'
import { appliedEndKeys, inWaveAdmission, tellPromoted, waveEndKeys } from './batch_admission.ts'
import { carriesAttributes, writeAttributes } from './attribute_writes.ts'
import { touchesEventWaits, writeEventWaits } from './event_wait_writes.ts'
import { carriesLineage, writeLineage } from './lineage_writes.ts'
import { QueuePass, carriesQueues } from './queue_writes.ts'
import { runIdOf } from './op_columns.ts'
import { resultOf, wakeTime } from './op_results.ts'
import { readCheckpoints } from './checkpoints_at.ts'
import { checkpointKey, readRuns } from './reads.ts'
import { carriesLogs, writeCheckpointLogs } from './step_log_writes.ts'
import { validateOps } from './validate_ops.ts'
import { loneOp } from './lone_write.ts'
import { planWaves, type PlannedOp, type Wave } from './wave_plan.ts'
import type { Observation, WaveAdmission, WaveGuards, WaveWriter } from './wave_writer.ts'

/** `wakeStatement` is sent when the batch made runs claimable outside the waves (promotions, grants). */
export interface BatchContext extends WakeContext {
  readonly writer: WaveWriter
}

export async function applyBatch(
  ctx: BatchContext,
  ops: readonly StoreOp[],
  now: number,
): Promise<OpResult[]> {
  validateOps(ops)
  if (ops.length === 0) return []
  const lone = ctx.writer.writeAlone === undefined ? null : loneOp(ops)
  if (lone !== null && (await ctx.writer.writeAlone?.(ctx.pool, lone, now)) === true)
    return [resultOf(lone, { applied: true, epoch: null }) as OpResult]
  return applyOps(ctx, ops, now, ctx.writer.admitsInWave)
}

/** `admitInWave`: creates under singleton keys may be admitted in the wave's statement. */
async function applyOps(
  ctx: BatchContext,
  ops: readonly StoreOp[],
  now: number,
  admitInWave: boolean,
): Promise<OpResult[]> {
  const waves = planWaves(ops)
  // Event wait rows, search attributes and step logs are more statements after the waves': a
  // transaction holds them.
  const attributes = ops.some(carriesAttributes)
  const logs = ops.some(carriesLogs)
  const lineage = ops.some(carriesLineage)
  const queues = ops.some(carriesQueues)
  const simple =
    waves.length === 1 &&
    ctx.writer.selfContained &&
    !attributes &&
    !logs &&
    !lineage &&
    !queues &&
    !ops.some(touchesEventWaits)
  const admitting = ops.some(carriesAdmission)
  const inWave = admitting && admitInWave ? inWaveAdmission(ops, waves, simple) : null
  // Ends naming a key take it FOR SHARE in their statement (Postgres) only when that statement
  // is the whole batch: a later wave's would lock the key after earlier waves locked runs.
  const guardEnds = ctx.writer.guardsEndKeys && simple
  const endsNeedPass = ctx.writer.guardsEndKeys && !simple && ops.some(namesKey)
  const pass = (admitting && inWave === null) || endsNeedPass
  // The keys to settle once the batch commits (admission_settle.ts); null: every key an end
  // that applied names.
  let unsettled: Key[] | null = null
  const write = async (session: SqlSession) => {
    // Keys and queues are locked before any run row is written (admission_writes.ts,
    // queue_writes.ts).
    const passes: Passes = {
      admission: pass ? await AdmissionPass.lock(ctx, session, ops, ctx.writer.admitsInWave) : null,
      queues: queues ? await QueuePass.lock(ctx, session, ops) : null,
      unsettled: !pass && guardEnds ? [] : null,
      inWave,
    }
    const results = await writeWaves(ctx, session, waves, ops.length, now, passes)
    if (attributes) await writeAttributes(ctx, session, ops, results)
    if (logs) await writeCheckpointLogs(ctx, session, ops, results, now)
    const woke = passes.admission?.promotedAny === true || passes.queues?.wokeAny === true
    if (woke && ctx.wakeStatement !== undefined) await session.query(ctx.wakeStatement(now))
    unsettled = passes.admission?.queuedOn ?? passes.unsettled
    return results
  }
  const results = simple && !pass ? await write(ctx.pool) : await ctx.pool.transaction(write)
  // Declined: the statement wrote nothing (a key was full, had waiters, was new, or moved).
  if (inWave?.declined === true) return applyOps(ctx, ops, now, false)
  // Ends written without their keys' lock, and keys the creates queued on: their waiters meet
  // any free slot now (admission_settle.ts).
  const keys = unsettled ?? appliedEndKeys(ops, results)
  if (keys.length > 0) tellPromoted(ops, results, await settleKeys(ctx, keys, now))
  return results
}

function namesKey(op: StoreOp): boolean {
  return releasedKey(op) !== null
}

/** The passes around the waves a batch needs (null: it carries nothing for them). */
interface Passes {
  admission: AdmissionPass | null
  queues: QueuePass | null
  /** Without an admission pass, on a writer that guards end keys: the keys it flagged. */
  unsettled: Key[] | null
  /** The creates admitted in the wave's statement (one wave), or null. */
  inWave: WaveAdmission | null
}

async function writeWaves(
  ctx: BatchContext,
  session: SqlSession,
  waves: readonly Wave[],
  count: number,
  now: number,
  passes: Passes,
): Promise<OpResult[]> {
  const results = new Array<OpResult>(count)
  let earliest: number | null = null
  for (const [k, wave] of waves.entries()) {
    const last = k === waves.length - 1
    const guards: WaveGuards = {}
    const endKeys = passes.unsettled === null ? undefined : waveEndKeys(wave, passes.unsettled)
    if (endKeys !== undefined) guards.endKeys = endKeys
    if (passes.inWave !== null) guards.admission = passes.inWave
    const seen = await ctx.writer.write(session, wave, now, last ? { earliest } : null, guards)
    // Declined: nothing was written and the observations mean nothing (applyOps applies the
    // batch again through the pass).
    if (passes.inWave?.declined === true) return results
    const built = await explain(ctx, session, wave, seen)
    const waveOps = wave.map(({ op }) => op)
    // Creates decided (kept, queued, or deleted: `full`) before their lineage is written.
    if (passes.admission !== null)
      await passes.admission.afterWave(ctx, session, waveOps, built, now)
    // Queue writes of the ops that applied (a create refused by admission is not one).
    if (passes.queues !== null) await passes.queues.afterWave(ctx, session, waveOps, built, now)
    await writeEventWaits(ctx, session, waveOps, built)
    // Right after its wave: a create of the same id in a later wave reports `exists` with the
    // run as stored, tags and origin included.
    await writeLineage(ctx, session, waveOps, built)
    built.forEach((result, i) => {
      const { index, op } = wave[i] as PlannedOp
      results[index] = result
      earliest = earlier(earliest, wakeTime(op, result, now))
    })
  }
  return results
}

/**
 * Results of a wave. An op refused because of a stored row the writer did not return (the run
 * a create found, the recorded checkpoint a save met) has that row read, once per wave.
 */
async function explain(
  ctx: SqlContext,
  session: SqlSession,
  wave: Wave,
  seen: readonly Observation[],
): Promise<OpResult[]> {
  const results = wave.map(({ op }, i) => resultOf(op, seen[i] as Observation))
  const missing = wave.flatMap((_, i) => (results[i] === null ? [i] : []))
  if (missing.length === 0) return results as OpResult[]
  const refused = missing.map((i) => (wave[i] as PlannedOp).op)
  const rows = await readAfterCommit(ctx, session, () => readStoredRows(ctx, session, refused))
  return results.map((result, i) => result ?? settle(ctx, (wave[i] as PlannedOp).op, seen[i], rows))
}

/** Attempts of the read explaining an autocommitted wave's refusals. */
const EXPLAIN_ATTEMPTS = 3

/**
 * `read` on `session`; when that is the pool itself (an autocommitted wave, already
 * committed), a failed read is tried again here: failing the call would have the store retry
 * the whole batch, and replay what it committed (`exists` for its own creates, `fenced` for its
 * own finishes). Inside a transaction a failure aborts it, and the whole call is retried.
 */
async function readAfterCommit<T>(
  ctx: SqlContext,
  session: SqlSession,
  read: () => Promise<T>,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read()
    } catch (error) {
      const again =
        session === ctx.pool && attempt < EXPLAIN_ATTEMPTS && ctx.pool.classify(error) !== 'fatal'
      if (!again) throw error
    }
  }
}

interface StoredRows {
  runs: Map<string, RunRecord>
  checkpoints: Map<string, CheckpointRecord>
  /** Runs of refused saves deleted since their wave (read outside its locks: a retention sweep). */
  gone: Set<string>
}

/** The runs of the creates and the checkpoints of the saves among `ops`. */
async function readStoredRows(
  ctx: SqlContext,
  session: SqlSession,
  ops: readonly StoreOp[],
): Promise<StoredRows> {
  const created = ops.flatMap((op) => (op.type === 'createRun' ? [op.run.id] : []))
  const places = ops.flatMap((op) =>
    op.type === 'saveCheckpoint' ? [[op.fence.runId, op.checkpoint.seq] as const] : [],
  )
  const saves =
    places.length > 0
      ? await readCheckpoints(ctx, session, places)
      : { checkpoints: new Map(), gone: new Set<string>() }
  return {
    runs: created.length > 0 ? await readRuns(ctx, session, created) : new Map(),
    checkpoints: saves.checkpoints,
    gone: saves.gone,
  }
}

/** The result with the stored row filled in; the fence stays the one the op was checked against. */
function settle(
  ctx: SqlContext,
  op: StoreOp,
  seen: Observation | undefined,
  rows: StoredRows,
): OpResult {
  const fence = seen !== undefined && !seen.applied ? seen.fence : null
  const run = op.type === 'createRun' ? (rows.runs.get(op.run.id) ?? null) : null
  const checkpoint =
    op.type === 'saveCheckpoint'
      ? (rows.checkpoints.get(checkpointKey(op.fence.runId, op.checkpoint.seq)) ?? null)
      : null
  // An applied op whose observation lacks what its result reports is a writer's bug: loud.
  const result = seen?.applied ? null : resultOf(op, { applied: false, fence, run, checkpoint })
  if (result !== null) return result
  // A save refused for its stored outcome, whose run was deleted before that outcome could be
  // read (an autocommitted wave holds no lock after it): as a save on a missing run.
  if (op.type === 'saveCheckpoint' && rows.gone.has(op.fence.runId))
    return { status: 'fenced', current: null }
  throw new StoreFailureError(
    `${ctx.dialect.name} store: applyBatch: the stored state does not explain why a ${op.type} of run ${runIdOf(op)} did not apply`,
    { details: { op: op.type, runId: runIdOf(op) } },
  )
}

function earlier(a: number | null, b: number | null): number | null {
  if (a === null) return b
  return b === null ? a : Math.min(a, b)
}
