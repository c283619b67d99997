/**
 * In-process notification when a turn of a run ends, so `waitForRun` on a run this engine
 * executes answers at once — with the outcome itself when the run finished, no store read —
 * while runs executed elsewhere are polled with back-off.
 */
import type { TerminalStatus } from '../contracts/records.ts'

/** A finished run's outcome as its turn committed it (encoded payloads). */
export interface TerminalOutcome {
  status: TerminalStatus
  output: string | null
  error: string | null
  /** Status `continued`: the successor. */
  continuedTo?: string | null
}

import { longTimeout } from '../util/numbers.ts'

type Waiter = (outcome: TerminalOutcome | null) => void

export class RunWaiters {
  private readonly waiters = new Map<string, Set<Waiter>>()

  /**
   * Resolves on the next notify for `runId` (with the outcome if the run finished, else null),
   * or with null after `maxWaitMs` (Infinity: no time limit).
   */
  wait(runId: string, maxWaitMs: number): Promise<TerminalOutcome | null> {
    const { promise, resolve } = Promise.withResolvers<TerminalOutcome | null>()
    let set = this.waiters.get(runId)
    if (set === undefined) this.waiters.set(runId, (set = new Set()))
    // Chained past 2^31 - 1 ms, where setTimeout alone would fire after 1 ms (a busy loop).
    const cancel = Number.isFinite(maxWaitMs) ? longTimeout(maxWaitMs, () => done(null)) : null
    const done: Waiter = (outcome) => {
      cancel?.()
      set.delete(done)
      if (set.size === 0 && this.waiters.get(runId) === set) this.waiters.delete(runId)
      resolve(outcome)
    }
    set.add(done)
    return promise
  }

  /** A turn of `runId` ended here (or it was cancelled): wake its waiters. */
  notify(runId: string, outcome: TerminalOutcome | null = null): void {
    const set = this.waiters.get(runId)
    if (set === undefined) return
    for (const done of [...set]) done(outcome)
  }

  get size(): number {
    return this.waiters.size
  }
}
