/**
 * `run:recovered` for the runs a claim took over from a lease holder (ClaimResult.recovered):
 * built only when someone listens.
 */
import type { ClaimResult } from '../contracts/state_store.ts'
import type { EventHub } from './events.ts'

export function emitRecovered(events: EventHub, result: ClaimResult, instanceId: string): void {
  if (result.recovered === undefined || !events.wants('run:recovered')) return
  const runs = new Map(result.claimed.map((run) => [run.id, run]))
  for (const { runId, previousOwner } of result.recovered) {
    const run = runs.get(runId)
    if (run === undefined) continue // a store naming a run it did not return: nothing to say
    events.emit('run:recovered', {
      runId,
      workflow: run.workflow,
      version: run.version,
      previousOwner,
      kind: previousOwner === instanceId ? 'reclaimed' : 'takeover',
    })
  }
}
