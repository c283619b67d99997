/**
 * A successor (created by ctx.continueAsNew) runs only once its predecessor has ended
 * `continued` to it. The successor is written in the same batch as, and before, its
 * predecessor's fenced finish; when that finish did not apply (a cancel won, or the lease had
 * moved), the successor exists but must not run:
 * - the predecessor is still live (another holder replays it and will continue to this same
 *   successor: its id is derived from the predecessor's): hand the successor back for later;
 * - the predecessor ended otherwise (cancelled, failed, …): the successor is an orphan and
 *   ends `cancelled`, telling no parent (the predecessor's own ending already did).
 * Checked before the successor's first step only: once it has history it has passed. A
 * successor that may run first adopts its predecessor's unreceived signals (inbox_adoption.ts).
 */
import type { RunRecord } from '../contracts/records.ts'
import { CancelledError } from '../errors/index.ts'
import { adoptInbox } from './inbox_adoption.ts'
import { cancelUnstarted, type UnstartedCancelDeps } from './unstarted_cancel.ts'

const LIVE = new Set(['queued', 'pending', 'running', 'waiting', 'blocked', 'parked'])

/** `onCancelled`: an orphaned successor ended cancelled. */
export type SuccessorCheckDeps = UnstartedCancelDeps

export class SuccessorCheck {
  readonly #deps: SuccessorCheckDeps

  constructor(deps: SuccessorCheckDeps) {
    this.#deps = deps
  }

  /**
   * True when `run` (claimed, leased) may execute — its predecessor's signals are then in its
   * inbox; otherwise its lease has been dealt with.
   */
  async check(run: RunRecord): Promise<boolean> {
    const from = run.continuedFrom as string
    const { store, clock, leaseMs, logger } = this.#deps.options
    const predecessor = await store.getRun(from)
    if (predecessor?.status === 'continued' && predecessor.continuedTo === run.id) {
      await adoptInbox(this.#deps, from, run.id)
      return true
    }
    const fence = { runId: run.id, epoch: run.leaseEpoch }
    if (predecessor !== null && LIVE.has(predecessor.status)) {
      logger.debug(
        { runId: run.id, predecessor: from },
        'cairn: successor waits for its predecessor to end',
      )
      const availableAt = clock.now() + leaseMs
      await this.#deps.committer.enqueue({ type: 'releaseRun', fence, availableAt })
      return false
    }
    const ended = predecessor === null ? 'does not exist' : `ended ${predecessor.status}`
    const error = new CancelledError(
      `run "${from}" ${ended} without continuing to this run, so this run will not start`,
      { details: { runId: run.id, continuedFrom: from } },
    )
    await cancelUnstarted(this.#deps, run, error)
    return false
  }
}
