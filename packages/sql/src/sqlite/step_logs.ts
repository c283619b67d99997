/**
 * Step logs on SQLite (contracts/step_logs.ts): a merge is one read of the run's key and the
 * position's record, then one upsert, inside the caller's BEGIN IMMEDIATE; the merge itself is
 * store-kit's, so a record is the same on every store.
 */
import { mergeStepLogs, parseStepLogDocument, stepLogRecord } from '@cairn/core/store-kit'
import type { StepLogAppend, StepLogPage, StepLogRecord } from '@cairn/core/contracts'
import type { Statements } from './statements.ts'

/** Merges `append` into its position's record; false (nothing written) when the run is gone. */
export function mergeStepLog(s: Statements, append: StepLogAppend, now: number): boolean {
  const row = s.selectStepLog.get(append.seq, append.runId) as
    { key: number; logs: string | null } | undefined
  if (row === undefined) return false
  const doc = mergeStepLogs(parseStepLogDocument(row.logs), append)
  s.upsertStepLog.run(row.key, append.seq, JSON.stringify(doc), now)
  return true
}

/** appendStepLogs, inside the caller's transaction: appends to unknown runs are skipped. */
export function appendStepLogs(
  s: Statements,
  appends: readonly StepLogAppend[],
  now: number,
): number {
  let merged = 0
  for (const append of appends) if (mergeStepLog(s, append, now)) merged += 1
  return merged
}

export function loadStepLogs(s: Statements, runId: string, page: StepLogPage): StepLogRecord[] {
  const from = page.updatedFrom ?? Number.MIN_SAFE_INTEGER
  const rows = s.loadStepLogs.all(runId, page.fromSeq, from, page.limit) as unknown as {
    seq: number
    logs: string
    updated_at: number
  }[]
  return rows.map((row) => stepLogRecord(runId, row.seq, row.logs, row.updated_at))
}
