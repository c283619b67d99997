/**
 * Step logs in the memory store (contracts/step_logs.ts): each position's record is kept as
 * the JSON text every store keeps, so a record handed out is never the store's own.
 */
import type { StepLogAppend, StepLogPage, StepLogRecord } from '../../contracts/index.ts'
import {
  mergeStepLogs,
  parseStepLogDocument,
  stepLogRecord,
} from '../../step_logs/step_log_rules.ts'
import type { RunState } from './run_state.ts'
import type { StoreState } from './store_state.ts'

/** Merges `append` into its position's record (the caller decided that it applies). */
export function mergeInto(state: RunState, append: StepLogAppend, now: number): void {
  const stored = state.stepLogs.get(append.seq)
  const doc = mergeStepLogs(parseStepLogDocument(stored?.text ?? null), append)
  state.stepLogs.set(append.seq, { text: JSON.stringify(doc), updatedAt: now })
}

/** appendStepLogs: skips unknown runs. */
export function appendStepLogs(
  store: StoreState,
  appends: readonly StepLogAppend[],
  now: number,
): number {
  let merged = 0
  for (const append of appends) {
    const state = store.runs.get(append.runId)
    if (state === undefined) continue
    mergeInto(state, append, now)
    merged += 1
  }
  return merged
}

export function loadStepLogs(store: StoreState, runId: string, page: StepLogPage): StepLogRecord[] {
  const state = store.runs.get(runId)
  if (state === undefined) return []
  const from = page.updatedFrom ?? Number.MIN_SAFE_INTEGER
  return [...state.stepLogs.entries()]
    .filter(([seq, { updatedAt }]) => seq >= page.fromSeq && updatedAt >= from)
    .map(([seq]) => seq)
    .sort((a, b) => a - b)
    .slice(0, page.limit)
    .map((seq) => {
      const { text, updatedAt } = state.stepLogs.get(seq) as { text: string; updatedAt: number }
      return stepLogRecord(runId, seq, text, updatedAt)
    })
}
