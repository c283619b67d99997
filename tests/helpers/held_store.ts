/**
 * A StateStore wrapper that can hold the next batch carrying a suspend with event waits at
 * the store's door: the test sees the run between `ctx.waitForEvent` and its committed
 * suspend, does something there (publishes), then lets the batch through.
 */
import type { OpResult, StoreOp } from '@cairn/core/contracts'
import { FlakyStore } from './flaky_store.ts'

export interface Hold {
  /** Resolves once the held batch has reached the store (nothing of it applied yet). */
  reached: Promise<void>
  /** Lets the held batch be applied. */
  release(): void
}

export class HeldStore extends FlakyStore {
  private armed: { reached(): void; gate: Promise<void> } | null = null

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
    return super.applyBatch(ops, now)
  }
}

function registersEventWaits(op: StoreOp): boolean {
  return op.type === 'suspendRun' && (op.eventWaits?.length ?? 0) > 0
}
