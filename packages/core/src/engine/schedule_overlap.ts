/**
 * What a schedule's overlap policy asks: is the previous window's run still open? A run that
 * continued as new is open while its newest successor is; the chain is followed to its end
 * (a cycle, impossible by construction, stops the walk as ended).
 */
import type { StateStore } from '../contracts/state_store.ts'
import { isTerminalStatus } from '../store/run_statuses.ts'

/** The open run of `runId`'s continueAsNew chain (itself or its newest successor), or null. */
export async function openRunOf(store: StateStore, runId: string | null): Promise<string | null> {
  const seen = new Set<string>()
  for (let id = runId; id !== null && !seen.has(id);) {
    seen.add(id)
    const run = await store.getRun(id)
    if (run === null) return null
    if (run.status === 'continued' && run.continuedTo !== null) {
      id = run.continuedTo
      continue
    }
    return isTerminalStatus(run.status) ? null : run.id
  }
  return null
}
