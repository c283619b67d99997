/**
 * The safety net of singleton admission: queued runs whose key has a free slot nobody filled.
 * Every end the engine writes names its key, so its waiters are promoted before the write
 * returns; a run ended by an engine of an earlier version (during a rolling deploy) or by a
 * direct store call frees its slot without promoting anyone, and so does an end whose
 * promotion failed after its commit (the SQL servers promote right after it). Those waiters
 * would wait for the key's next start or end. Each sweep (with the park sweep) takes the next
 * page of queued runs, oldest first, and promotes their keys' waiters, each under its lock by
 * the rule an end applies (StateStore.promoteQueued); past the last page it starts again, so
 * every waiting key is looked at, however many older waiters sit on full keys before it.
 */
import type { AdmissionKey, StateStore } from '../contracts/state_store.ts'

/** Queued runs looked at per sweep (their keys: at most as many, one promoteQueued call). */
const PAGE = 100

export class StrandedWaiters {
  readonly #store: StateStore
  /** Where the next sweep's page starts (null: at the oldest queued run). */
  #cursor: string | null = null

  constructor(store: StateStore) {
    this.#store = store
  }

  /** One page's keys promoted; the number of runs promoted. */
  async sweep(now: number): Promise<number> {
    const cursor = this.#cursor
    // Back to the oldest page if the read fails (a cursor refused, say, must not stick).
    this.#cursor = null
    const page = await this.#store.listRuns({
      status: 'queued',
      order: 'oldest',
      limit: PAGE,
      ...(cursor === null ? {} : { cursor }),
    })
    const keys = new Map<string, AdmissionKey>()
    for (const run of page.runs)
      if (run.admission !== null)
        keys.set(`${run.admission.scope}\u0000${run.admission.key}`, run.admission)
    if (keys.size > 0) {
      try {
        const promoted = await this.#store.promoteQueued([...keys.values()], now)
        this.#cursor = page.nextCursor
        return promoted
      } catch (error) {
        this.#cursor = cursor // the same page again next time
        throw error
      }
    }
    this.#cursor = page.nextCursor
    return 0
  }
}
