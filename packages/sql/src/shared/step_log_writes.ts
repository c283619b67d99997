/**
 * The step logs of a batch's applied checkpoints (SaveCheckpointOp.logs), merged in the
 * batch's transaction after its waves (apply_batch.ts), in batch order. Only saves that
 * applied count (a replayed save reports `conflict`, a fenced one `fenced`: neither writes).
 *
 * Four statements (the runs' keys, then step_log_rows.ts), none when no applied save carries
 * logs, so batches without them keep their statements. The keys are read without a lock: the
 * save applied, so its wave holds the run row already (FOR NO KEY UPDATE on Postgres, FOR
 * UPDATE on MySQL) until commit; asking again, even for a weaker lock, would gain nothing.
 */
import { StoreFailureError } from '@cairn/core'
import type { OpResult, StoreOp } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import type { SqlSession } from './driver.ts'
import { mergeStepLogRows, runKeys, type KeyedAppend } from './step_log_rows.ts'

export function carriesLogs(op: StoreOp): boolean {
  return op.type === 'saveCheckpoint' && op.logs !== undefined
}

export async function writeCheckpointLogs(
  ctx: SqlContext,
  session: SqlSession,
  ops: readonly StoreOp[],
  results: readonly OpResult[],
  now: number,
): Promise<void> {
  const appends = ops.flatMap((op, i) =>
    op.type === 'saveCheckpoint' && op.logs !== undefined && results[i]?.status === 'applied'
      ? [op.logs]
      : [],
  )
  if (appends.length === 0) return
  const keys = await runKeys(
    ctx,
    session,
    appends.map((append) => append.runId),
    '',
  )
  const keyed = appends.map((append): KeyedAppend => {
    const key = keys.get(append.runId)
    if (key !== undefined) return { key, append }
    // Its save applied, under the lock its wave still holds: the run cannot be gone.
    throw new StoreFailureError(
      `${ctx.dialect.name} store: applyBatch: run ${append.runId} of an applied checkpoint is gone`,
      { details: { runId: append.runId } },
    )
  })
  await mergeStepLogRows(ctx, session, keyed, now)
}
