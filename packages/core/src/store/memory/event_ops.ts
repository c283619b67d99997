/** The memory store's event calls (broadcast events): the log and the registered waits. */
import type {
  EventPruning,
  EventRecord,
  EventWaitRecord,
  EventWaitRef,
} from '../../contracts/index.ts'
import type { StoreState } from './store_state.ts'

export function appendEvent(
  store: StoreState,
  event: EventRecord,
  prune: EventPruning,
): { publishedAt: number } {
  const stored = store.events.event(event.id)
  if (stored === undefined) store.events.append(event)
  store.events.prune(prune.before, prune.limit, event.id)
  return { publishedAt: (stored ?? event).publishedAt }
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
