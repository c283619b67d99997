/** What every shared statement builder needs: where the tables are and how to spell SQL. */
import type { SqlDialect } from './dialect.ts'
import type { SqlPool, SqlStatement } from './driver.ts'
import type { Tables } from './tables.ts'
import type { WorkflowKey } from '@cairn/core/contracts'
import type { Params } from './params.ts'

export interface SqlContext {
  readonly pool: SqlPool
  readonly dialect: SqlDialect
  readonly tables: Tables
}

/** A context whose writes may make runs claimable, and can say so to other engines. */
export interface WakeContext extends SqlContext {
  /**
   * A statement publishing a wake-up hint, sent in the transaction that made a run claimable
   * (Postgres: NOTIFY, delivered on commit). Absent: other engines find the run by polling.
   */
  readonly wakeStatement?: (at: number) => SqlStatement
}

/**
 * `(workflow, version) IN ((?, ?), …)` for a non-empty key list: a row-value list both
 * servers plan as index conditions on the claim index. Its text depends on the key count;
 * an engine's runnable set rarely changes, so the statements repeat.
 */
export function keyList(params: Params, keys: readonly WorkflowKey[], negate = false): string {
  const rows = keys.map((key) => `(${params.add(key.workflow)}, ${params.add(key.version)})`)
  return `(workflow, version) ${negate ? 'NOT IN' : 'IN'} (${rows.join(', ')})`
}
