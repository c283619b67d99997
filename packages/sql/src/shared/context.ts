/** What every shared statement builder needs: where the tables are and how to spell SQL. */
import type { SqlDialect } from './dialect.ts'
import type { SqlPool } from './driver.ts'
import type { Tables } from './tables.ts'
import type { WorkflowKey } from '@cairn/core/contracts'
import type { Params } from './params.ts'

export interface SqlContext {
  readonly pool: SqlPool
  readonly dialect: SqlDialect
  readonly tables: Tables
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
