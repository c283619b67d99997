import type { OpResult, RunStatus } from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'

/** Read only after a write did not apply: why it was fenced (the run's state, or null). */
export function fencedResult(s: Statements, runId: string): OpResult {
  const row = s.selectFence.get(runId) as { status: string; lease_epoch: number } | undefined
  if (row === undefined) return { status: 'fenced', current: null }
  return { status: 'fenced', current: { status: row.status as RunStatus, epoch: row.lease_epoch } }
}

/** The outcome of a fenced single-statement write, from its `changes`. */
export function fencedWrite(s: Statements, runId: string, changes: number | bigint): OpResult {
  return Number(changes) > 0 ? { status: 'applied' } : fencedResult(s, runId)
}
