/**
 * appendStepLogs and loadStepLogs on Postgres and MySQL (contracts/step_logs.ts).
 *
 * An append call is ONE transaction. Its runs are read first, with a shared lock, in key order
 * like a batch's wave: appends to runs that do not exist are skipped, and a concurrent
 * deleteRunTrees (FOR UPDATE on the runs) cannot delete a run before the rows merged into it
 * commit. Postgres FOR KEY SHARE waits for no batch (their wave locks are FOR NO KEY UPDATE),
 * only for a delete; MySQL LOCK IN SHARE MODE waits for a batch writing the run to commit
 * (short), and such a batch waits for the append's. Then step_log_rows.ts merges, locking step
 * log rows in key order only once every run lock is held — as a batch does after its waves —
 * so appends and batches never wait for each other's step log rows in a cycle. Statements:
 * BEGIN, the runs, then three (none when no run exists), COMMIT.
 */
import { checkStepLogAppends, checkStepLogPage, stepLogRecord } from '@cairn/core/store-kit'
import type { StepLogAppend, StepLogPage, StepLogRecord } from '@cairn/core/contracts'
import type { SqlContext } from './context.ts'
import { toSafeInteger } from './integers.ts'
import { Params } from './params.ts'
import { mergeStepLogRows, runKeys, type KeyedAppend } from './step_log_rows.ts'

export async function appendStepLogs(
  ctx: SqlContext,
  appends: readonly StepLogAppend[],
  now: number,
): Promise<number> {
  checkStepLogAppends(appends) // refused before anything is written
  if (appends.length === 0) return 0
  return ctx.pool.transaction(async (session) => {
    const ids = appends.map((append) => append.runId)
    const keys = await runKeys(ctx, session, ids, ctx.dialect.lockRowsShared)
    const keyed = appends.flatMap((append): KeyedAppend[] => {
      const key = keys.get(append.runId)
      return key === undefined ? [] : [{ key, append }]
    })
    await mergeStepLogRows(ctx, session, keyed, now)
    return keyed.length
  })
}

/** One read: a range of the (run_key, seq) primary key. */
export async function loadStepLogs(
  ctx: SqlContext,
  runId: string,
  page: StepLogPage,
): Promise<StepLogRecord[]> {
  checkStepLogPage(page)
  const p = new Params(ctx.dialect)
  const text = `SELECT l.seq, l.logs, l.updated_at FROM ${ctx.tables.runs} r
    JOIN ${ctx.tables.stepLogs} l ON l.run_key = r.key
    WHERE r.id = ${p.add(runId)} AND l.seq >= ${p.add(page.fromSeq)}
      AND l.updated_at >= ${p.add(page.updatedFrom ?? Number.MIN_SAFE_INTEGER)}
    ORDER BY l.seq LIMIT ${p.add(page.limit)}`
  const { rows } = await ctx.pool.query(p.statement(text))
  return rows.map(([seq, logs, updatedAt]) =>
    stepLogRecord(
      runId,
      toSafeInteger(seq, 'seq'),
      logs as string,
      toSafeInteger(updatedAt, 'updated_at'),
    ),
  )
}
