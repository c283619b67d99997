/**
 * Index of claimable runs: one min-heap per workflow version and priority, ordered by
 * `availableAt` (a run's priority is fixed at creation, so it never changes heaps).
 * Claims and parkUnrunnable read only the heads of the heaps they need, so 100,000 finished
 * runs cost nothing. Entries are never removed in place: a changed run gets a new entry and
 * its old one turns stale (token mismatch) and is dropped when it surfaces or on compaction.
 */
import type { WorkflowKey } from '../../contracts/index.ts'
import { MinHeap } from './min_heap.ts'
import { claimableAt, type RunState } from './run_state.ts'

export interface ClaimEntry {
  at: number
  /** Insertion order: equal `availableAt` come out first in, first out. */
  order: number
  token: number
  state: RunState
}

function entryBefore(a: ClaimEntry, b: ClaimEntry): boolean {
  return a.at < b.at || (a.at === b.at && a.order < b.order)
}

function isLive(entry: ClaimEntry): boolean {
  return entry.state.indexed && entry.token === entry.state.claimToken
}

/** Claimable runs of one workflow version and priority, earliest `availableAt` first. */
export class ClaimQueue {
  readonly key: WorkflowKey
  readonly priority: number
  readonly #heap = new MinHeap<ClaimEntry>(entryBefore)
  #live = 0

  constructor(key: WorkflowKey, priority: number) {
    this.key = key
    this.priority = priority
  }

  add(state: RunState, at: number, order: number): void {
    this.#heap.push({ at, order, token: state.claimToken, state })
    this.#live++
    state.indexed = true
    // Stale entries of busy runs (lease renewals) would pile up between claims.
    if (this.#heap.size > 2 * this.#live + 64) this.#compact()
  }

  /** The run's entry is stale from now on. */
  forget(state: RunState): void {
    state.indexed = false
    this.#live--
  }

  /** The earliest live entry, dropping stale ones on the way. */
  peek(): ClaimEntry | undefined {
    let top = this.#heap.peek()
    while (top !== undefined && !isLive(top)) {
      this.#heap.pop()
      top = this.#heap.peek()
    }
    return top
  }

  /**
   * Remove the earliest live entry if its `availableAt <= time`; its run is out of the index
   * until re-indexed.
   */
  takeDueBy(time: number): RunState | undefined {
    const top = this.peek()
    if (top === undefined || top.at > time) return undefined
    this.#heap.pop()
    this.forget(top.state)
    return top.state
  }

  liveStates(): RunState[] {
    return this.#heap
      .items()
      .filter(isLive)
      .map((entry) => entry.state)
  }

  #compact(): void {
    this.#heap.rebuild(this.#heap.items().filter(isLive))
  }
}

export class ClaimIndex {
  /** workflow → version → priority → queue. */
  readonly #queues = new Map<string, Map<string, Map<number, ClaimQueue>>>()
  #order = 0

  /** Re-index a run after its status or `availableAt` changed. */
  update(state: RunState): void {
    const queue = this.#queueOf(state.run)
    if (state.indexed) queue.forget(state)
    state.claimToken++
    const at = claimableAt(state.run)
    if (at !== null) queue.add(state, at, this.#order++)
  }

  /** The queues (every priority) of these workflow versions that exist, each once. */
  queuesFor(keys: readonly WorkflowKey[]): ClaimQueue[] {
    const found = new Set<ClaimQueue>()
    for (const key of keys) {
      const levels = this.#queues.get(key.workflow)?.get(key.version)
      for (const queue of levels?.values() ?? []) found.add(queue)
    }
    return [...found]
  }

  *queues(): Iterable<ClaimQueue> {
    for (const versions of this.#queues.values()) {
      for (const levels of versions.values()) yield* levels.values()
    }
  }

  #queueOf(run: WorkflowKey & { priority: number }): ClaimQueue {
    let versions = this.#queues.get(run.workflow)
    if (versions === undefined) this.#queues.set(run.workflow, (versions = new Map()))
    let levels = versions.get(run.version)
    if (levels === undefined) versions.set(run.version, (levels = new Map()))
    let queue = levels.get(run.priority)
    if (queue === undefined) {
      // Copy the key: `run` is a run record the queue must not keep alive.
      queue = new ClaimQueue({ workflow: run.workflow, version: run.version }, run.priority)
      levels.set(run.priority, queue)
    }
    return queue
  }
}
