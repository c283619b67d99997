/**
 * Delivering a broadcast event to one registered wait: a message into the wait's run inbox,
 * addressed to the wait's position, deduplicated per (event id, position). Publisher and
 * suspending run both deliver this way (whichever of them sees the other), so a wait receives
 * an event at most once however many times it is delivered.
 */
import type { EventRecord, EventWaitRecord } from '../contracts/records.ts'
import type { DeliverMessageOp } from '../contracts/state_store.ts'
import { eventMatches } from './event_match.ts'
import { RESERVED_PREFIX } from './wait_names.ts'

/** The inbox name of the events delivered to position `seq` (one wait per position). */
export function eventMessageName(seq: number): string {
  return `${RESERVED_PREFIX}event:${seq}`
}

/**
 * Whether `event` is for `wait`: same name, published at or after the wait began, and its
 * payload (`decoded`: the event's payload through the codec) matching the wait's match.
 */
export function eventReaches(wait: EventWaitRecord, event: EventRecord, decoded: unknown): boolean {
  if (event.name !== wait.name || event.publishedAt < wait.startedAt) return false
  return eventMatches(wait.match, decoded)
}

export function eventDelivery(wait: EventWaitRecord, event: EventRecord): DeliverMessageOp {
  return {
    type: 'deliverMessage',
    message: {
      runId: wait.runId,
      kind: 'event',
      name: eventMessageName(wait.seq),
      dedupeId: `${RESERVED_PREFIX}event:${event.id}:${wait.seq}`,
      payload: event.payload,
    },
  }
}
