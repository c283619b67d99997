/**
 * Runs in (createdAt, id) order for listRuns. Runs are created in roughly increasing time,
 * so an insert is almost always an append; out-of-order ones are spliced in after a binary
 * search. Pages walk from the cursor position, backwards (newest first) or forwards (oldest
 * first) (keyset pagination): runs created between two pages never shift the next page.
 */
import type { AdmissionKey, RunStatus } from '../../contracts/index.ts'
import { isTerminalStatus } from '../run_statuses.ts'
import { termMatches, type SearchTerm } from '../../search/attribute_filter.ts'
import { compareCodePoints } from './code_point_order.ts'
import type { CursorPosition } from '../run_cursor.ts'
import { claimableAt, type RunState } from './run_state.ts'

export interface ListFilter {
  workflow: string | undefined
  parentRunId: string | undefined
  statuses: ReadonlySet<RunStatus> | null
  /** Search attribute conditions, ANDed ([] for none). */
  terms: readonly SearchTerm[]
  version: string | undefined
  /** Inclusive. */
  createdFrom: number | undefined
  /** Exclusive. */
  createdBefore: number | undefined
  /** Exclusive; runs without a claimableAt (parked, finished) never match. */
  claimableBefore: number | undefined
  /** A literal, case-sensitive substring of the id. */
  idContains: string | undefined
  tag?: string | undefined
  originRunId?: string | undefined
  /** Open runs (admitted or queued) of this singleton key. */
  admissionKey?: AdmissionKey | undefined
}

function comparePosition(a: CursorPosition, b: CursorPosition): number {
  return a.createdAt - b.createdAt || compareCodePoints(a.id, b.id)
}

export class RunListing {
  readonly #states: RunState[] = []

  insert(state: RunState): void {
    const states = this.#states
    const last = states[states.length - 1]
    if (last === undefined || comparePosition(last.run, state.run) < 0) states.push(state)
    else states.splice(this.#lowerBound(state.run), 0, state)
  }

  /** Take a run out of the listing (deleted). */
  remove(state: RunState): void {
    const i = this.#lowerBound(state.run)
    if (this.#states[i] === state) this.#states.splice(i, 1)
  }

  /**
   * Up to `limit` matching runs past `after` (from the start when null) in the listing's
   * direction — older ones newest first when `descending`, newer ones oldest first otherwise —
   * and whether more match beyond them.
   */
  page(filter: ListFilter, after: CursorPosition | null, limit: number, descending = true) {
    const found: RunState[] = []
    const [start, end] = this.#window(filter)
    const step = descending ? -1 : 1
    let i = descending
      ? Math.min(after === null ? end : this.#lowerBound(after), end) - 1
      : Math.max(after === null ? start : this.#upperBound(after), start)
    for (; i >= start && i < end && found.length <= limit; i += step) {
      const state = this.#states[i] as RunState
      if (matches(state, filter)) found.push(state)
    }
    // One extra match was looked for only to know whether another page exists.
    const more = found.length > limit
    return { states: more ? found.slice(0, limit) : found, more }
  }

  /** Every run matching `filter`, in no set order (facetRuns counts them). */
  *matching(filter: ListFilter): Generator<RunState> {
    for (const state of this.#states) if (matches(state, filter)) yield state
  }

  /** The index range of the runs in `filter`'s creation window: [first, just past the last). */
  #window(filter: ListFilter): [number, number] {
    const { createdFrom, createdBefore } = filter
    return [
      createdFrom === undefined ? 0 : this.#lowerBound({ createdAt: createdFrom, id: '' }),
      createdBefore === undefined
        ? this.#states.length
        : this.#lowerBound({ createdAt: createdBefore, id: '' }),
    ]
  }

  /** Index of the first run after `position` (the run at it, if still listed, is skipped). */
  #upperBound(position: CursorPosition): number {
    const i = this.#lowerBound(position)
    const at = this.#states[i]
    return at !== undefined && comparePosition(at.run, position) === 0 ? i + 1 : i
  }

  /** Index of the first run at or after `position`. */
  #lowerBound(position: CursorPosition): number {
    let low = 0
    let high = this.#states.length
    while (low < high) {
      const mid = (low + high) >> 1
      if (comparePosition((this.#states[mid] as RunState).run, position) < 0) low = mid + 1
      else high = mid
    }
    return low
  }
}

function matches(state: RunState, filter: ListFilter): boolean {
  const run = state.run
  if (filter.workflow !== undefined && run.workflow !== filter.workflow) return false
  if (filter.parentRunId !== undefined && run.parentRunId !== filter.parentRunId) return false
  if (filter.statuses !== null && !filter.statuses.has(run.status)) return false
  if (filter.version !== undefined && run.version !== filter.version) return false
  if (filter.createdFrom !== undefined && run.createdAt < filter.createdFrom) return false
  if (filter.createdBefore !== undefined && run.createdAt >= filter.createdBefore) return false
  if (filter.claimableBefore !== undefined && !claimableBefore(run, filter.claimableBefore))
    return false
  if (filter.idContains !== undefined && !run.id.includes(filter.idContains)) return false
  if (filter.tag !== undefined && !run.tags.includes(filter.tag)) return false
  if (filter.originRunId !== undefined && run.origin?.runId !== filter.originRunId) return false
  if (filter.admissionKey !== undefined && !openUnder(run, filter.admissionKey)) return false
  return filter.terms.every((term) => termMatches(state.searchAttributes.get(term.name), term))
}

function openUnder(run: RunState['run'], key: AdmissionKey): boolean {
  const held = run.admission
  return (
    held !== null &&
    held.scope === key.scope &&
    held.key === key.key &&
    !isTerminalStatus(run.status)
  )
}

function claimableBefore(run: RunState['run'], time: number): boolean {
  const at = claimableAt(run)
  return at !== null && at < time
}
