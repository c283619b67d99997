/**
 * A child run starts only while its parent is not cancelled. Cancelling a parent cancels its
 * open children (cancellation.ts), but a child's create is not fenced by its parent's lease: a
 * parent turn that created the child just as the parent was cancelled elsewhere can commit the
 * child after the cascade listed the children — a child nobody cancels. So before a child's
 * first step (a turn with no history), the driver reads its parent: cancelled, the child ends
 * `cancelled` too, having run nothing. One read per child turn that has no history yet.
 */
import type { RunRecord } from '../contracts/records.ts'
import { CancelledError } from '../errors/index.ts'
import { encodeError } from '../execution/outcome.ts'
import type { Committer } from './committer.ts'
import type { ResolvedEngineOptions } from './options.ts'

export interface ParentCheckDeps {
  options: ResolvedEngineOptions
  committer: Committer
  /** The child ended cancelled: tell waiters and listeners. */
  onCancelled(run: RunRecord): void
}

export class ParentCheck {
  readonly #deps: ParentCheckDeps

  constructor(deps: ParentCheckDeps) {
    this.#deps = deps
  }

  /** True when `run` (a claimed child with no history) may start; else it has been dealt with. */
  async check(run: RunRecord & { parentRunId: string }): Promise<boolean> {
    const { store, codec } = this.#deps.options
    const parent = await store.getRun(run.parentRunId)
    if (parent?.status !== 'cancelled') return true
    const error = new CancelledError(
      `parent run "${run.parentRunId}" was cancelled before this child started`,
      { details: { runId: run.id, parentRunId: run.parentRunId } },
    )
    const result = await this.#deps.committer.enqueue({
      type: 'finishRun',
      fence: { runId: run.id, epoch: run.leaseEpoch },
      status: 'cancelled',
      output: null,
      error: encodeError(error, codec),
    })
    if (result.status === 'applied') this.#deps.onCancelled(run)
    return false
  }
}
