/** The memory store's event calls (broadcast events): the log and the registered waits. */
import type {
  EventAppend,
  EventBatchAdd,
  EventBatchState,
  EventPruning,
  EventRecord,
  EventWaitRecord,
  EventWaitRef,
} from '../../contracts/index.ts'
import { checkEventBatchAdds } from '../event_batch_rules.ts'
import type { StoreState } from './store_state.ts'

export function appendEvent(
  store: StoreState,
  event: EventRecord,
  prune: EventPruning,
  batches?: readonly EventBatchAdd[],
): EventAppend {
  const adds = checkEventBatchAdds(batches, 'appendEvent')
  const stored = store.events.event(event.id)
  let states: EventBatchState[] = []
  if (stored === undefined) {
    store.eventBatches.checkOpenIds(adds)
    store.events.append(event)
    // The event's publish time is the store's `now` for its adds: one clock per append.
    states = adds.map((add) => store.eventBatches.add(add, event, event.publishedAt))
  }
  store.events.prune(prune.before, prune.limit, event.id)
  return {
    publishedAt: (stored ?? event).publishedAt,
    appended: stored === undefined,
    batches: states,
  }
}

export function loadEvents(store: StoreState, name: string, since: number): EventRecord[] {
  return store.events.eventsSince(name, since)
}

export function loadEventWaits(store: StoreState, name: string): EventWaitRecord[] {
  return store.events.waitsFor(name)
}

export function removeEventWaits(store: StoreState, waits: readonly EventWaitRef[]): number {
  let removed = 0
  for (const wait of waits) if (store.events.remove(wait)) removed += 1
  return removed
}
