/**
 * EngineTransport.depth's answer from rows a transport counted piecewise (a queue per
 * requirement set, a row per step key, a task at a time): one row per step — counts summed,
 * the largest oldest-ready age — sorted by step name (code point order). A count some row does
 * not know (null) is not known for the step. One rule for every transport.
 */
import type { TaskDepth } from '../contracts/transport.ts'

export function mergeTaskDepths(rows: Iterable<TaskDepth>): TaskDepth[] {
  const bySteps = new Map<string, TaskDepth>()
  for (const row of rows) {
    const sum = bySteps.get(row.step)
    if (sum === undefined) {
      bySteps.set(row.step, { ...row })
      continue
    }
    sum.ready += row.ready
    sum.delayed = plus(sum.delayed, row.delayed)
    sum.held = plus(sum.held, row.held)
    sum.redelivered = plus(sum.redelivered, row.redelivered)
    if (row.oldestReadyAgeMs !== null)
      sum.oldestReadyAgeMs = Math.max(sum.oldestReadyAgeMs ?? 0, row.oldestReadyAgeMs)
  }
  return [...bySteps.values()].sort((a, b) => (a.step < b.step ? -1 : a.step > b.step ? 1 : 0))
}

function plus(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b
}

/**
 * Rows for counts of repeated deliveries kept apart from the tasks (a counter per step): zeros
 * for what is pending, merged with the task rows by `mergeTaskDepths`.
 */
export function redeliveryRows(counts: Iterable<readonly [string, number]>): TaskDepth[] {
  return [...counts].map(([step, redelivered]) => ({
    step,
    ready: 0,
    delayed: 0,
    held: 0,
    oldestReadyAgeMs: null,
    redelivered,
  }))
}
