/**
 * The suspending side of broadcast events. A publisher appends its event to the log and then
 * reads the registered waits; a run registers its event waits with its suspend and then,
 * once that is durable, reads the log for events published since each wait began. Whichever
 * of the two commits second sees the other, so an event published while the run was between
 * `waitForEvent` and its suspend is not lost (both may deliver: the dedupe id makes that
 * one delivery). Each wait is given the first matching event of the log here; later ones
 * come from their publishers.
 */
import type { Codec } from '../contracts/codec.ts'
import type { EventRecord, EventWaitRecord } from '../contracts/records.ts'
import type { EventWaitToRegister, StateStore, StoreOp } from '../contracts/state_store.ts'
import type { Committer } from '../engine/committer.ts'
import { eventDelivery, eventReaches } from './event_delivery.ts'

export interface CatchUpDeps {
  store: StateStore
  committer: Committer
  codec: Codec
}

/** Delivers to the waits of run `runId` what the log holds for them; resolves with how many. */
export async function catchUpEvents(
  deps: CatchUpDeps,
  runId: string,
  registered: readonly EventWaitToRegister[],
): Promise<number> {
  const waits: EventWaitRecord[] = registered.map((wait) => ({ runId, ...wait }))
  const ops: StoreOp[] = []
  for (const [name, ofName] of Map.groupBy(waits, (wait) => wait.name)) {
    const since = Math.min(...ofName.map((wait) => wait.startedAt))
    const events = await deps.store.loadEvents(name, since)
    if (events.length === 0) continue
    const decoded = events.map((event) => deps.codec.decode(event.payload))
    for (const wait of ofName) {
      const first = firstReaching(wait, events, decoded)
      if (first !== null) ops.push(eventDelivery(wait, first))
    }
  }
  const results = await Promise.all(ops.map((op) => deps.committer.enqueue(op)))
  return results.filter((r) => r.status === 'delivered' && !r.duplicate).length
}

function firstReaching(
  wait: EventWaitRecord,
  events: readonly EventRecord[],
  decoded: readonly unknown[],
): EventRecord | null {
  const at = events.findIndex((event, i) => eventReaches(wait, event, decoded[i]))
  return at === -1 ? null : (events[at] as EventRecord)
}

/** What the log held for one wait, delivered to its run's inbox (the message to consume). */
export interface CaughtUpEvent {
  seq: number
  payload: string
}

/**
 * The first logged event reaching `wait` (of run `runId`), delivered to its inbox — or found
 * delivered already (the dedupe id names the event and the position) — or null when the log
 * holds none. For a wait registered by an earlier turn, which cannot know whether that turn's
 * read of the log happened (its process may have died right after the suspend).
 */
export async function catchUpOneWait(
  deps: CatchUpDeps,
  runId: string,
  registered: EventWaitToRegister,
): Promise<CaughtUpEvent | null> {
  const wait: EventWaitRecord = { runId, ...registered }
  const events = await deps.store.loadEvents(wait.name, wait.startedAt)
  const decoded = events.map((event) => deps.codec.decode(event.payload))
  const first = firstReaching(wait, events, decoded)
  if (first === null) return null
  const result = await deps.committer.enqueue(eventDelivery(wait, first))
  return result.status === 'delivered' ? { seq: result.seq, payload: first.payload } : null
}
