/**
 * The memory store's finished runs per status, in finish order (finishedAt, then id by code
 * point): what the SQL stores' `cairn_runs_finished` index is to them. A page of expired runs
 * or a count cutoff is a binary search and a walk, not a sort of every run. Runs finish in
 * roughly increasing time, so an insert is almost always an append.
 */
import type { FinishedPosition, TerminalStatus } from '../../contracts/index.ts'
import { compareFinished } from '../retention_rules.ts'
import { isTerminalStatus } from '../run_statuses.ts'
import type { RunState } from './run_state.ts'

/** Where a run sits in the index: its status and position, or null (not finished). */
export interface FinishKey {
  status: TerminalStatus
  position: FinishedPosition
}

export function finishKeyOf(state: RunState): FinishKey | null {
  const { status, finishedAt, id } = state.run
  if (!isTerminalStatus(status) || finishedAt === null) return null
  return { status, position: { finishedAt, runId: id } }
}

/** An entry keeps the position it was indexed at: the run's own fields may change first. */
interface Entry {
  state: RunState
  at: FinishedPosition
}

export class FinishIndex {
  readonly #byStatus = new Map<TerminalStatus, Entry[]>()

  insert(state: RunState, key: FinishKey): void {
    const list = this.#byStatus.get(key.status) ?? []
    this.#byStatus.set(key.status, list)
    const entry = { state, at: key.position }
    const last = list[list.length - 1]
    if (last === undefined || compareFinished(last.at, key.position) < 0) list.push(entry)
    else list.splice(lowerBound(list, key.position), 0, entry)
  }

  remove(state: RunState, key: FinishKey): void {
    const list = this.#byStatus.get(key.status)
    if (list === undefined) return
    const i = lowerBound(list, key.position)
    if (list[i]?.state === state) list.splice(i, 1)
  }

  /** The runs of `status` after `after` (exclusive; from the oldest when undefined), oldest first. */
  *from(status: TerminalStatus, after: FinishedPosition | undefined): Generator<Entry> {
    const list = this.#byStatus.get(status) ?? []
    let i = after === undefined ? 0 : lowerBound(list, after)
    if (
      after !== undefined &&
      list[i] !== undefined &&
      compareFinished((list[i] as Entry).at, after) === 0
    )
      i++
    for (; i < list.length; i++) yield list[i] as Entry
  }

  /** The runs of `status`, newest first. */
  *newest(status: TerminalStatus): Generator<Entry> {
    const list = this.#byStatus.get(status) ?? []
    for (let i = list.length - 1; i >= 0; i--) yield list[i] as Entry
  }
}

/** Index of the first entry at or after `at`. */
function lowerBound(list: readonly Entry[], at: FinishedPosition): number {
  let low = 0
  let high = list.length
  while (low < high) {
    const mid = (low + high) >> 1
    if (compareFinished((list[mid] as Entry).at, at) < 0) low = mid + 1
    else high = mid
  }
  return low
}
