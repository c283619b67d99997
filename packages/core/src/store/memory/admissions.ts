/**
 * Singleton admission in the memory store (CreateRunOp.admission). Per key: the limit the
 * newest writer gave, the next queue number, and the key's runs that are not terminal. Counts
 * are read from those runs' statuses, never kept as counters: a run leaves its key's set in
 * the same change that ends it (StoreState.change), so a slot cannot outlive its holder.
 */
import type { Admission, AdmissionKeyStats, OpResult } from '../../contracts/index.ts'
import type { AdmissionKeysStart } from '../admission_keys_query.ts'
import { decideAdmission } from '../admission_decision.ts'
import { compareCodePoints } from './code_point_order.ts'
import { isTerminalStatus } from '../run_statuses.ts'
import type { RunState } from './run_state.ts'

interface KeyState {
  scope: string
  key: string
  limit: number
  nextSeq: number
  /** The key's runs that are not terminal: admitted (any open status) or queued. */
  live: Set<RunState>
}

/** Where the queued runs wait, by queue number (start order). */
const QUEUE_SEQ = new WeakMap<RunState, number>()

export type AdmissionDecision =
  { kind: 'admitted' } | { kind: 'queued'; seq: number } | { kind: 'full'; result: OpResult }

export class AdmissionIndex {
  readonly #keys = new Map<string, KeyState>()

  /** The newest writer's limit for the key. */
  setLimit(scope: string, key: string, limit: number): void {
    this.#key(scope, key).limit = limit
  }

  /** Decide for a run about to be created under `admission`; nothing changes on `full`. */
  decide(admission: Admission): AdmissionDecision {
    const state = this.#key(admission.scope, admission.key)
    const counts = this.counts(admission.scope, admission.key)
    const outcome = decideAdmission(admission, counts, false)
    if (outcome.kind === 'full') return { kind: 'full', result: outcome.result }
    return outcome.kind === 'queued' ? { kind: 'queued', seq: state.nextSeq++ } : outcome
  }

  /** A run created under its key (admitted or queued at `seq`). */
  add(state: RunState, seq: number | null): void {
    const admission = state.run.admission
    if (admission === null) return
    this.#key(admission.scope, admission.key).live.add(state)
    if (seq !== null) QUEUE_SEQ.set(state, seq)
  }

  /** Called on every change of a run: an ended run leaves its key. */
  changed(state: RunState): void {
    const admission = state.run.admission
    if (admission === null || !isTerminalStatus(state.run.status)) return
    const key = this.#keys.get(keyOf(admission.scope, admission.key))
    key?.live.delete(state)
    QUEUE_SEQ.delete(state)
  }

  counts(scope: string, key: string): { admitted: number; queued: number } {
    let admitted = 0
    let queued = 0
    for (const run of this.#keys.get(keyOf(scope, key))?.live ?? []) {
      if (run.run.status === 'queued') queued++
      else admitted++
    }
    return { admitted, queued }
  }

  /** The key's queued runs that fit under its limit now, oldest first. */
  promotable(scope: string, key: string): RunState[] {
    const state = this.#keys.get(keyOf(scope, key))
    if (state === undefined) return []
    const { admitted } = this.counts(scope, key)
    const free = state.limit - admitted
    if (free <= 0) return []
    return [...state.live]
      .filter((run) => run.run.status === 'queued')
      .sort((a, b) => (QUEUE_SEQ.get(a) ?? 0) - (QUEUE_SEQ.get(b) ?? 0))
      .slice(0, free)
  }

  /** A run leaving the queue (promoted) keeps its key, no longer its place. */
  dequeued(state: RunState): void {
    QUEUE_SEQ.delete(state)
  }

  /**
   * A failed run requeued re-enters its key (the caller promoted first): into a free slot, or
   * at the back of the queue — never refused, whatever `onFull` was: an operator's requeue
   * must not lose the run. True when it is queued.
   */
  reenter(state: RunState): boolean {
    const admission = state.run.admission as { scope: string; key: string }
    const key = this.#key(admission.scope, admission.key)
    const { admitted, queued } = this.counts(admission.scope, admission.key)
    key.live.add(state)
    if (admitted < key.limit && queued === 0) return false
    QUEUE_SEQ.set(state, key.nextSeq++)
    return true
  }

  /**
   * admissionKeys: the keys with open runs after `start.after` (of `start.scope` when given),
   * in (scope, key) code point order, up to `start.limit` and whether more follow. A scan of
   * every key: the memory store is for tests and development.
   */
  list(start: AdmissionKeysStart): { keys: AdmissionKeyStats[]; more: boolean } {
    const found: KeyState[] = []
    for (const state of this.#keys.values()) {
      if (state.live.size === 0) continue
      if (start.scope !== undefined && state.scope !== start.scope) continue
      if (start.after !== null && compareKeys(state, start.after) <= 0) continue
      found.push(state)
    }
    found.sort(compareKeys)
    const keys = found.slice(0, start.limit).map((state) => this.#stats(state))
    return { keys, more: found.length > start.limit }
  }

  #stats(state: KeyState): AdmissionKeyStats {
    const { admitted, queued } = this.counts(state.scope, state.key)
    let first: RunState | null = null
    for (const run of state.live)
      if (run.run.status === 'queued' && (first === null || seqOf(run) < seqOf(first))) first = run
    return {
      scope: state.scope,
      key: state.key,
      limit: state.limit,
      admitted,
      queued,
      oldestQueuedSince: first === null ? null : first.run.createdAt,
    }
  }

  #key(scope: string, key: string): KeyState {
    const id = keyOf(scope, key)
    let state = this.#keys.get(id)
    if (state === undefined) {
      state = { scope, key, limit: 1, nextSeq: 0, live: new Set() }
      this.#keys.set(id, state)
    }
    return state
  }
}

function seqOf(state: RunState): number {
  return QUEUE_SEQ.get(state) ?? 0
}

function compareKeys(a: { scope: string; key: string }, b: { scope: string; key: string }) {
  return compareCodePoints(a.scope, b.scope) || compareCodePoints(a.key, b.key)
}

function keyOf(scope: string, key: string): string {
  // Neither holds a NUL (admission_check.ts): the pair is unambiguous.
  return `${scope}\u0000${key}`
}
