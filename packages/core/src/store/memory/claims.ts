/** Leasing runs to engines: claimRuns and reclaimOwned. */
import type { ClaimRequest, ClaimResult } from '../../contracts/index.ts'
import type { ClaimEntry, ClaimQueue } from './claim_index.ts'
import { claimResult } from '../claim_result.ts'
import { oldestShare } from '../run_priority.ts'
import { copyRun } from './copies.ts'
import type { RunState } from './run_state.ts'
import type { StoreState } from './store_state.ts'

export function claimRuns(store: StoreState, request: ClaimRequest): ClaimResult {
  const queues = store.claims.queuesFor(request.runnable)
  const taken: RunState[] = []
  // The oldest share first (run_priority.ts), then by priority.
  const oldest = oldestShare(request)
  while (taken.length < oldest) {
    const state = earliestQueue(queues)?.takeDueBy(request.now)
    if (state === undefined) break
    taken.push(state)
  }
  while (taken.length < request.limit) {
    const state = firstDueQueue(queues, request.now)?.takeDueBy(request.now)
    if (state === undefined) break
    taken.push(state)
  }
  // Before the claimed runs are re-indexed: their new lease expiry is not "next".
  const nextAvailableAt = earliestQueue(queues)?.peek()?.at ?? null
  const recovered = taken.filter(isLeased).map(({ run }) => ({
    runId: run.id,
    previousOwner: run.leaseOwner as string,
  }))
  for (const state of taken) lease(store, state, request)
  return claimResult(
    taken.map((state) => copyRun(state.run)),
    nextAvailableAt,
    recovered,
  )
}

/** Still `running`: its lease expired or was handed back (reclaimOwned). */
function isLeased(state: RunState): boolean {
  return state.run.status === 'running'
}

/** The queue whose head is due first (a handful of runnable versions: a linear pick). */
function earliestQueue(queues: readonly ClaimQueue[]): ClaimQueue | undefined {
  let best: ClaimQueue | undefined
  let bestAt = Infinity
  for (const queue of queues) {
    const at = queue.peek()?.at
    if (at !== undefined && at < bestAt) {
      best = queue
      bestAt = at
    }
  }
  return best
}

/** The queue of highest priority with a due head; among equals, the head due first. */
function firstDueQueue(queues: readonly ClaimQueue[], now: number): ClaimQueue | undefined {
  let best: ClaimQueue | undefined
  let bestHead: ClaimEntry | undefined
  for (const queue of queues) {
    const head = queue.peek()
    if (head === undefined || head.at > now) continue
    if (best === undefined || queue.priority > best.priority || dueBefore(queue, head)) {
      best = queue
      bestHead = head
    }
  }
  return best

  function dueBefore(queue: ClaimQueue, head: ClaimEntry): boolean {
    const other = bestHead as ClaimEntry
    const earlier = head.at < other.at || (head.at === other.at && head.order < other.order)
    return queue.priority === (best as ClaimQueue).priority && earlier
  }
}

function lease(store: StoreState, state: RunState, request: ClaimRequest): void {
  const run = state.run
  store.change(
    state,
    {
      status: 'running',
      leaseOwner: request.owner,
      leaseEpoch: run.leaseEpoch + 1,
      turns: run.turns + 1,
      // A takeover (its holder's lease lapsed, or reclaimOwned gave it back): RunRecord.recoveries.
      recoveries: run.status === 'running' ? run.recoveries + 1 : run.recoveries,
      availableAt: request.now + request.leaseMs,
      waitingOn: null,
    },
    request.now,
  )
}

export function reclaimOwned(store: StoreState, owner: string, now: number): number {
  const owned: RunState[] = []
  for (const queue of store.claims.queues()) {
    for (const state of queue.liveStates()) {
      if (state.run.status === 'running' && state.run.leaseOwner === owner) owned.push(state)
    }
  }
  for (const state of owned) store.change(state, { availableAt: now }, now)
  return owned.length
}
