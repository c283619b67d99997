/**
 * Orphans: runs leased to this engine's instance id that nobody in this process executes. A
 * process with this id died holding them (a restart under the same id), or a start's
 * acknowledgement was lost after its create-with-claim committed (P2). engine.start finds
 * such a run when a caller resubmits it; rather than leave it until its lease expires, the
 * engine has it claimed now.
 *
 * Never by running it on the lease it found: that lease belongs to whoever held it, and a turn
 * that skipped the claim would run without the history the claim's `turns` promises (a
 * restarted engine once replayed such a run from step 0, re-running committed steps). The
 * orphan goes back to the store under the epoch it was found at — a fenced release, so a
 * claim that took it meanwhile wins — and the next poll claims it like any run: epoch + 1,
 * history loaded. A run that is claimable already (its lease expired, or reclaimOwned handed
 * it back at start-up) needs no release: the poll is just asked to come now.
 */
import type { RunRecord } from '../contracts/records.ts'
import type { Committer } from './committer.ts'
import type { EventHub } from './events.ts'
import type { ResolvedEngineOptions } from './options.ts'

export interface OrphanAdopterDeps {
  options: ResolvedEngineOptions
  committer: Committer
  events: EventHub
  isDriving(): boolean
  /** This process executes the run, or is about to (creating it, loading it after a claim). */
  holds(runId: string): boolean
  /** A claim is in flight: a run it takes is not yet known to `holds`. */
  claimInFlight(): boolean
  /** Poll by `at`. */
  wake(at: number): void
}

export class OrphanAdopter {
  readonly #deps: OrphanAdopterDeps
  /** Orphans seen while a claim was in flight, looked at again once it has settled. */
  readonly #deferred = new Map<string, RunRecord>()

  constructor(deps: OrphanAdopterDeps) {
    this.#deps = deps
  }

  /** `run` was read from the store just now (engine.start found it existing). */
  adopt(run: RunRecord): void {
    const { options, isDriving, holds, claimInFlight } = this.#deps
    if (!isDriving() || run.status !== 'running') return
    if (run.leaseOwner !== options.instanceId || holds(run.id)) return
    // The claim in flight may have taken this very run at this very epoch: releasing it now
    // would pull the lease from under the turn about to start.
    if (claimInFlight()) return void this.#deferred.set(run.id, run)
    const now = options.clock.now()
    if (run.availableAt !== null && run.availableAt <= now) return this.#deps.wake(now)
    void this.#release(run, now)
  }

  /** The claim in flight has settled and its runs are held: look at the deferred orphans. */
  claimSettled(): void {
    if (this.#deferred.size === 0) return
    const deferred = [...this.#deferred.values()]
    this.#deferred.clear()
    for (const run of deferred) this.adopt(run)
  }

  async #release(run: RunRecord, now: number): Promise<void> {
    const { committer, events, options, wake } = this.#deps
    const fence = { runId: run.id, epoch: run.leaseEpoch }
    try {
      const result = await committer.enqueue({ type: 'releaseRun', fence, availableAt: now })
      if (result.status !== 'applied') return // claimed (or ended) since it was read: not ours
    } catch (error) {
      // The committer closed, or the store failed: the lease expires and a poll takes it then.
      options.logger.warn(
        { err: error, runId: run.id },
        'cairn: could not hand back an orphaned run; it is claimed when its lease expires',
      )
      return
    }
    if (events.wants('run:recovered')) {
      const ref = { runId: run.id, workflow: run.workflow, version: run.version }
      events.emit('run:recovered', {
        ...ref,
        previousOwner: options.instanceId,
        kind: 'reclaimed',
      })
    }
    wake(now)
  }
}
