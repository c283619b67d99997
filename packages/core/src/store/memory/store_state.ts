import type { RunRecord } from '../../contracts/index.ts'
import { AdmissionIndex } from './admissions.ts'
import { ClaimIndex } from './claim_index.ts'
import { EventBatches } from './event_batches.ts'
import { Schedules } from './schedules.ts'
import { EventState } from './event_state.ts'
import { QueueIndex } from './queues.ts'
import { RunListing } from './run_listing.ts'
import { newRunState, type RunState } from './run_state.ts'
import { FinishIndex, finishKeyOf, type FinishKey } from './finish_index.ts'

/** Everything a MemoryStore holds, with the indexes kept in step with every change. */
export class StoreState {
  readonly runs = new Map<string, RunState>()
  readonly claims = new ClaimIndex()
  /** Parked runs, for unpark (few, so scanned). */
  readonly parked = new Set<RunState>()
  readonly listing = new RunListing()
  /** The event log and the registered event waits (broadcast events). */
  readonly events = new EventState()
  /** Event accumulators (onEvent `batch`). */
  readonly eventBatches = new EventBatches()
  readonly schedules = new Schedules()
  /** Singleton keys and their live runs (admissions.ts). */
  readonly admissions = new AdmissionIndex()
  /** Named queues and their items (queues.ts). */
  readonly queues = new QueueIndex()
  /** Finished runs per status in finish order (retention's pages and cutoffs). */
  readonly finished = new FinishIndex()
  /** Each parent's children (deleteRunTrees walks trees by it). */
  readonly children = new Map<string, Set<RunState>>()

  addRun(run: RunRecord): RunState {
    const state = newRunState(run)
    this.runs.set(run.id, state)
    this.listing.insert(state)
    this.claims.update(state)
    if (run.parentRunId !== null) {
      const siblings = this.children.get(run.parentRunId) ?? new Set<RunState>()
      this.children.set(run.parentRunId, siblings.add(state))
    }
    return state
  }

  /** Forget a finished run and everything of its own (deleteRunTrees). */
  deleteRun(state: RunState): void {
    const run = state.run
    const key = finishKeyOf(state)
    if (key !== null) this.finished.remove(state, key)
    this.runs.delete(run.id)
    this.listing.remove(state)
    this.parked.delete(state)
    this.events.removeRun(run.id)
    this.queues.forgetRun(state)
    this.children.delete(run.id)
    if (run.parentRunId !== null) {
      const siblings = this.children.get(run.parentRunId)
      siblings?.delete(state)
      if (siblings?.size === 0) this.children.delete(run.parentRunId)
    }
  }

  /** Apply `changes` to a run (stamping `updatedAt`) and re-index it. */
  change(state: RunState, changes: Partial<RunRecord>, now: number): void {
    const finishedBefore = finishKeyOf(state)
    Object.assign(state.run, changes)
    this.#refinish(state, finishedBefore)
    state.run.updatedAt = now
    this.claims.update(state)
    if (state.run.status === 'parked') this.parked.add(state)
    else this.parked.delete(state)
    this.admissions.changed(state)
  }

  /** Moves a run in the finish index when a change finished it, reopened it or moved its time. */
  #refinish(state: RunState, before: FinishKey | null): void {
    const after = finishKeyOf(state)
    if (sameKey(before, after)) return
    if (before !== null) this.finished.remove(state, before)
    if (after !== null) this.finished.insert(state, after)
  }
}

function sameKey(a: FinishKey | null, b: FinishKey | null): boolean {
  if (a === null || b === null) return a === b
  return a.status === b.status && a.position.finishedAt === b.position.finishedAt
}
