/**
 * TransportTables.depth in SQL, the same for every dialect but its clock expression: conditional
 * sums (FILTER is Postgres-only) grouped by step key, then each step key's count of repeated
 * deliveries as a row of its own (the caller merges rows of one step).
 */
import type { StepDepthRow } from './tables.ts'

export function depthSql(tables: { tasks: string; counters: string }, now: string): string {
  const { tasks, counters } = tables
  const unheld = `(holder IS NULL OR held_until < ${now})`
  const due = `available_at <= ${now}`
  return `SELECT step_key,
    SUM(CASE WHEN ${unheld} AND ${due} THEN 1 ELSE 0 END),
    SUM(CASE WHEN ${unheld} AND NOT (${due}) THEN 1 ELSE 0 END),
    SUM(CASE WHEN ${unheld} THEN 0 ELSE 1 END),
    MAX(CASE WHEN ${unheld} AND ${due} THEN ${now} - available_at END),
    0
  FROM ${tasks} GROUP BY step_key
  UNION ALL
  SELECT step_key, 0, 0, 0, NULL, redelivered FROM ${counters}`
}

/** Rows as the drivers return them (arrays; counts may come as text or bigint). */
export function toDepthRows(rows: readonly unknown[][]): StepDepthRow[] {
  return rows.map(([stepKey, ready, delayed, held, oldest, redelivered]) => ({
    stepKey: String(stepKey),
    ready: Number(ready ?? 0),
    delayed: Number(delayed ?? 0),
    held: Number(held ?? 0),
    oldestReadyAgeMs: oldest === null || oldest === undefined ? null : Math.max(0, Number(oldest)),
    redelivered: Number(redelivered ?? 0),
  }))
}
