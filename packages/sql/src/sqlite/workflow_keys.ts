/** Matching a run's (workflow, version) against a list of keys in SQL. */
import type { WorkflowKey } from '@cairn/core/contracts'

/** `(?, ?), (?, ?), …` for a row-value `IN (VALUES …)`; the list must not be empty. */
export function keyRows(count: number): string {
  return Array.from({ length: count }, () => '(?, ?)').join(', ')
}

/** Bind values matching keyRows: workflow, version, workflow, version, … */
export function keyValues(keys: readonly WorkflowKey[]): string[] {
  return keys.flatMap((key) => [key.workflow, key.version])
}
