/** Parking runs no engine can run, and unparking them once one can. */
import type { ParkReason, WorkflowKey } from '../../contracts/index.ts'
import { freezeReason } from './copies.ts'
import type { RunState } from './run_state.ts'
import type { StoreState } from './store_state.ts'

export function parkUnrunnable(
  store: StoreState,
  runnable: readonly WorkflowKey[],
  olderThan: number,
  reason: ParkReason,
  now: number,
): number {
  const isRunnable = keyMatcher(runnable)
  const stale: RunState[] = []
  for (const queue of store.claims.queues()) {
    if (isRunnable(queue.key)) continue
    for (let state = queue.takeDueBy(olderThan); state; state = queue.takeDueBy(olderThan)) {
      stale.push(state)
    }
  }
  const parkReason = freezeReason(reason)
  for (const state of stale) {
    store.change(state, { status: 'parked', parkReason, availableAt: null, waitingOn: null }, now)
  }
  return stale.length
}

export function unpark(
  store: StoreState,
  keys: readonly WorkflowKey[],
  reasonCode: string,
  now: number,
): number {
  const wanted = keyMatcher(keys)
  const matching = [...store.parked].filter(
    (state) => state.run.parkReason?.code === reasonCode && wanted(state.run),
  )
  for (const state of matching) {
    // Its queue items held no slot while parked: they go with its grants, and it asks again.
    store.queues.forgetRun(state)
    store.change(
      state,
      { status: 'pending', availableAt: now, parkReason: null, recoveries: 0 },
      now,
    )
  }
  return matching.length
}

function keyMatcher(keys: readonly WorkflowKey[]): (key: WorkflowKey) => boolean {
  const versions = new Map<string, Set<string>>()
  for (const { workflow, version } of keys) {
    let set = versions.get(workflow)
    if (set === undefined) versions.set(workflow, (set = new Set()))
    set.add(version)
  }
  return (key) => versions.get(key.workflow)?.has(key.version) === true
}
