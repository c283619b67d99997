/**
 * Deleting run trees through StateStore.deleteRunTrees until each is settled: a tree cut short
 * by the call's bound (`partial`) or not reached (`skipped`) is asked for again, so callers see
 * one final outcome per root — deleted (with every run it took), not found, or refused.
 * Shared by engine.deleteRun, engine.purgeRuns and the retention sweeper.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { StateStore } from '../contracts/state_store.ts'
import type { DeleteRunTreesRequest, RunTreeBlocker } from '../contracts/retention.ts'

/** Runs one store call deletes at most (its transaction's bound). */
export const RUNS_PER_CALL = 1_000

export type SettledTree =
  | { runId: string; outcome: 'deleted'; runs: number }
  | { runId: string; outcome: 'not_found' }
  /** No longer what `expect` said (requeued since, say): left alone. */
  | { runId: string; outcome: 'changed' }
  /** `runs`: what an earlier call of this deletion took before the tree became refused. */
  | { runId: string; outcome: 'refused'; blocker: RunTreeBlocker; runs: number }

export async function deleteTrees(
  store: StateStore,
  runIds: readonly string[],
  expect?: DeleteRunTreesRequest['expect'],
  pauseMs = 0,
): Promise<SettledTree[]> {
  const settled = new Map<string, SettledTree>()
  const taken = new Map<string, number>()
  let pending = [...runIds]
  while (pending.length > 0) {
    const request = { runIds: pending, maxRuns: RUNS_PER_CALL, ...(expect ? { expect } : {}) }
    const { trees } = await store.deleteRunTrees(request)
    const again: string[] = []
    for (const tree of trees) {
      const runs = (taken.get(tree.runId) ?? 0) + ('runs' in tree ? tree.runs : 0)
      taken.set(tree.runId, runs)
      if (tree.outcome === 'partial' || tree.outcome === 'skipped') again.push(tree.runId)
      else if (tree.outcome === 'deleted') settled.set(tree.runId, { ...tree, runs })
      else if (tree.outcome === 'refused') settled.set(tree.runId, { ...tree, runs })
      else if (tree.outcome === 'changed' && runs > 0)
        // Cut short earlier in this deletion, then reopened (requeued): what went, went.
        settled.set(tree.runId, { runId: tree.runId, outcome: 'deleted', runs })
      // A root an earlier call of this deletion cut short, gone now (another deleter finished it).
      else if (runs > 0) settled.set(tree.runId, { runId: tree.runId, outcome: 'deleted', runs })
      else settled.set(tree.runId, tree)
    }
    pending = again
    // A tree cut short: rest before its next transaction, as between a sweep's pages.
    if (pending.length > 0) await sleep(pauseMs)
  }
  return runIds.map((id) => settled.get(id) as SettledTree)
}
