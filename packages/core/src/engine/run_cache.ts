/**
 * Suspended runs kept in memory with their workflow body paused where it waits
 * (docs/run-cache.md). Without it every wake replays the run's whole history, so a run that
 * suspends n times costs O(n²); with it, the next claim of a cached run by this engine goes
 * on from the paused body and reads only the inbox.
 *
 * Correctness never depends on the cache: an entry is used only when the claim proves the run
 * is exactly as its turn left it (Turn.canResume: the claim's lease epoch is the only one since
 * that turn's suspend), and any other claim drops it and replays from the store. Entries of
 * runs another engine took over, or that ended elsewhere, are never resumed; they go when the
 * cache is full (least recently suspended first), when their run is claimed here again, or when
 * the engine drains.
 */
import type { Turn } from '../execution/turn.ts'

export class RunCache {
  // A Map iterates in insertion order: the first key is the least recently cached.
  readonly #turns = new Map<string, Turn>()
  readonly #capacity: number

  constructor(capacity: number) {
    this.#capacity = capacity
  }

  get size(): number {
    return this.#turns.size
  }

  /**
   * Keep `turn` (it suspended resumably); the least recently cached goes when full. Never called
   * with a capacity of 0: turns are only kept when the engine caches (TurnDeps.cacheRuns).
   */
  put(turn: Turn): void {
    this.#drop(turn.runId, 'replaced in the run cache')
    while (this.#turns.size >= this.#capacity) {
      const oldest = this.#turns.keys().next().value as string
      this.#drop(oldest, 'evicted from the run cache')
    }
    this.#turns.set(turn.runId, turn)
  }

  /** The cached turn of `runId`, taken out of the cache (the caller resumes or drops it). */
  take(runId: string): Turn | undefined {
    const turn = this.#turns.get(runId)
    this.#turns.delete(runId)
    return turn
  }

  /** Free every cached turn (the engine stops driving). */
  clear(): void {
    for (const runId of [...this.#turns.keys()]) this.#drop(runId, 'engine stopped driving')
  }

  #drop(runId: string, why: string): void {
    const turn = this.#turns.get(runId)
    if (turn === undefined) return
    this.#turns.delete(runId)
    turn.dispose(() => new Error(why))
  }
}
