/**
 * A StateStore wrapper that holds chosen calls so a test can act in the gap:
 * - the next batch carrying a suspend with event waits, at the store's door: the test sees the
 *   run between `ctx.waitForEvent` and its committed suspend, publishes, then lets it through;
 * - the next claim, at the door: the test acts while a poll's claim is in flight;
 * - the next batch a predicate picks, at the door (a slow write), or its answer after it applied:
 *   the engine is "paused" with a committed write it has not heard of yet (a process SIGSTOPped
 *   mid-round-trip).
 */
import type { ClaimRequest, ClaimResult, OpResult, StoreOp } from '@cairn/core/contracts'
import { FlakyStore } from './flaky_store.ts'

export interface Hold {
  /** Resolves once the held batch has reached the store (nothing of it applied yet). */
  reached: Promise<void>
  /** Lets the held batch be applied. */
  release(): void
}

interface Armed {
  reached(): void
  gate: Promise<void>
}

function arm(): { armed: Armed; hold: Hold } {
  const reached = Promise.withResolvers<void>()
  const gate = Promise.withResolvers<void>()
  return {
    armed: { reached: reached.resolve, gate: gate.promise },
    hold: { reached: reached.promise, release: gate.resolve },
  }
}

export class HeldStore extends FlakyStore {
  private armed: Armed | null = null
  private claimArmed: Armed | null = null
  private claimHeldAfter = false
  private answerArmed: {
    armed: Armed
    picks: (ops: readonly StoreOp[]) => boolean
    after: boolean
  } | null = null

  /**
   * Holds the next claimRuns call: `before` it reaches the store, or `after` it applied (the
   * runs are leased; the engine has not heard which).
   */
  holdNextClaim(when: 'before' | 'after' = 'before'): Hold {
    const { armed, hold } = arm()
    this.claimArmed = armed
    this.claimHeldAfter = when === 'after'
    return hold
  }

  /** Applies the next batch `picks` chooses, then holds its answer (`reached`: applied). */
  holdNextAnswer(picks: (ops: readonly StoreOp[]) => boolean): Hold {
    return this.holdNextBatch(picks, 'after')
  }

  /** Holds the next batch `picks` chooses: `before` it reaches the store, or `after` it applied. */
  holdNextBatch(picks: (ops: readonly StoreOp[]) => boolean, when: 'before' | 'after'): Hold {
    const { armed, hold } = arm()
    this.answerArmed = { armed, picks, after: when === 'after' }
    return hold
  }

  override async claimRuns(request: ClaimRequest): Promise<ClaimResult> {
    const armed = this.claimArmed
    if (armed === null) return super.claimRuns(request)
    this.claimArmed = null
    const result = this.claimHeldAfter ? await super.claimRuns(request) : null
    armed.reached()
    await armed.gate
    return result ?? super.claimRuns(request)
  }

  /** Holds the next batch that registers event waits. */
  holdNextEventSuspend(): Hold {
    const reached = Promise.withResolvers<void>()
    const gate = Promise.withResolvers<void>()
    this.armed = { reached: reached.resolve, gate: gate.promise }
    return { reached: reached.promise, release: gate.resolve }
  }

  override async applyBatch(ops: readonly StoreOp[], now: number): Promise<OpResult[]> {
    const armed = this.armed
    if (armed !== null && ops.some(registersEventWaits)) {
      this.armed = null
      armed.reached()
      await armed.gate
    }
    const answer = this.answerArmed
    if (answer === null || !answer.picks(ops)) return super.applyBatch(ops, now)
    this.answerArmed = null
    const results = answer.after ? await super.applyBatch(ops, now) : null
    answer.armed.reached()
    await answer.armed.gate
    return results ?? super.applyBatch(ops, now)
  }
}

function registersEventWaits(op: StoreOp): boolean {
  return op.type === 'suspendRun' && (op.eventWaits?.length ?? 0) > 0
}
