/**
 * The safety net of singleton admission: queued runs whose key has a free slot nobody filled.
 * Every end the engine writes names its key, so its waiters are promoted in that write; a run
 * ended by an engine of an earlier version (during a rolling deploy) or by a direct store call
 * frees its slot without promoting anyone, and its key's waiters would wait for the key's next
 * start or end. A sweep (with the park sweep) promotes them: the keys of the oldest queued
 * runs, each under its lock by the rule an end applies (StateStore.promoteQueued).
 */
import type { AdmissionKey } from '../contracts/state_store.ts'
import type { ResolvedEngineOptions } from './options.ts'

/** Keys looked at per sweep: those of the oldest queued runs of this page. */
const PAGE = 100

/** Runs promoted. */
export async function promoteStrandedWaiters(options: ResolvedEngineOptions): Promise<number> {
  const { store, clock } = options
  const page = await store.listRuns({ status: 'queued', order: 'oldest', limit: PAGE })
  const keys = new Map<string, AdmissionKey>()
  for (const run of page.runs)
    if (run.admission !== null)
      keys.set(`${run.admission.scope}\u0000${run.admission.key}`, run.admission)
  if (keys.size === 0) return 0
  return store.promoteQueued([...keys.values()], clock.now())
}
