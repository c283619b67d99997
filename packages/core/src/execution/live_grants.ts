/**
 * Queued steps whose turn holds its run in memory on this engine while it waits for a slot,
 * by (run, position): a grant this engine's own write made (OpResult.grants — another step's
 * outcome, an end, a cancel) is handed to the waiting turn at once, which runs the attempt,
 * instead of the run suspending and being woken, claimed and replayed for it. Only while the
 * turn holds the run (up to `holdTimersUpToMs`, as a short sleep is held); a grant made
 * later, or by another engine, reaches the run through its inbox.
 */
import type { SlotGrant } from '../contracts/state_store.ts'

export type LiveGrantHandler = (grant: SlotGrant) => void

export class LiveGrants {
  readonly #byPlace = new Map<string, LiveGrantHandler>()

  /** Registers the waiting position's handler; the returned function removes it (idempotent). */
  register(runId: string, seq: number, handler: LiveGrantHandler): () => void {
    const place = placeOf(runId, seq)
    this.#byPlace.set(place, handler)
    return () => {
      if (this.#byPlace.get(place) === handler) this.#byPlace.delete(place)
    }
  }

  /** Hands each grant to its waiting turn, if one holds it here. */
  deliver(grants: readonly SlotGrant[]): void {
    for (const grant of grants) this.#byPlace.get(placeOf(grant.runId, grant.seq))?.(grant)
  }

  get size(): number {
    return this.#byPlace.size
  }
}

function placeOf(runId: string, seq: number): string {
  return `${seq}\u0000${runId}`
}
