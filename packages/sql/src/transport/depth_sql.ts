/**
 * TransportTables.depth in SQL, the same for every dialect but its clock expression and its
 * integer cast: conditional sums (FILTER is Postgres-only) grouped by step key.
 */
import type { StepDepthRow } from './tables.ts'

export function depthSql(tasks: string, now: string): string {
  const unheld = `(holder IS NULL OR held_until < ${now})`
  const due = `available_at <= ${now}`
  return `SELECT step_key,
    SUM(CASE WHEN ${unheld} AND ${due} THEN 1 ELSE 0 END),
    SUM(CASE WHEN ${unheld} AND NOT (${due}) THEN 1 ELSE 0 END),
    SUM(CASE WHEN ${unheld} THEN 0 ELSE 1 END),
    MAX(CASE WHEN ${unheld} AND ${due} THEN ${now} - available_at END)
  FROM ${tasks} GROUP BY step_key`
}

/** Rows as the drivers return them (arrays; counts may come as text or bigint). */
export function toDepthRows(rows: readonly unknown[][]): StepDepthRow[] {
  return rows.map(([stepKey, ready, delayed, held, oldest]) => ({
    stepKey: String(stepKey),
    ready: Number(ready ?? 0),
    delayed: Number(delayed ?? 0),
    held: Number(held ?? 0),
    oldestReadyAgeMs: oldest === null || oldest === undefined ? null : Math.max(0, Number(oldest)),
  }))
}
