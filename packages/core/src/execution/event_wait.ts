/**
 * `ctx.waitForEvent(name, { match, timeoutMs })`: receive the first broadcast event `name`
 * (engine.publishEvent) published once this wait began and matching `match`, or fail with
 * EventTimeoutError once `timeoutMs` has passed. Events are delivered into the run's inbox
 * addressed to this position (event_delivery.ts); the received payload is recorded here,
 * consuming its message in the same write, so replay gives the same value. The wait never
 * holds the lease: the run suspends, registering the wait with its suspend, and an event (or
 * the timeout) wakes it. Its `waiting` checkpoint is always written, so the time it began
 * (`startedAt`, what publishers compare with) never moves across turns or restarts.
 */
import { EventTimeoutError, InvalidArgumentError } from '../errors/index.ts'
import { eventMessageName } from './event_delivery.ts'
import { encodeEventMatch } from './event_match.ts'
import { encodeError } from './outcome.ts'
import { EVENT_WAIT_OPTIONS } from './option_specs.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import type { TurnRuntime } from './runtime.ts'
import { checkWaitTimeout } from './wait_timeout.ts'
import type { EventWaitOptions } from './types.ts'
import { checkSignalName } from './wait_names.ts'
import { waitingRecord } from './waiting_record.ts'

export function waitForEvent<T>(
  rt: TurnRuntime,
  name: string,
  options: EventWaitOptions = {},
): Promise<T> {
  checkSignalName(name, 'an event name')
  if (typeof options !== 'object' || options === null) {
    throw new InvalidArgumentError('waitForEvent options must be an object { match?, timeoutMs? }')
  }
  checkOptionKeys(options, EVENT_WAIT_OPTIONS, `ctx.waitForEvent("${name}")`)
  const match = encodeEventMatch(options.match)
  const timeoutMs = checkWaitTimeout(options.timeoutMs, 'waitForEvent', rt.clock.now())
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, name, 'event')
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<T>(seq)
  if (record?.status === 'completed' || record?.status === 'failed') return outcome
  const startedAt = record?.startedAt ?? rt.clock.now()
  const deadline = record?.wakeAt ?? (timeoutMs === null ? null : startedAt + timeoutMs)
  const step = { seq, name, kind: 'event' as const, attempts: 1, startedAt, wakeAt: deadline }
  const pending =
    record === undefined
      ? waitingRecord({ runId: rt.runId, seq, name, kind: 'event', wakeAt: deadline, startedAt })
      : null
  const registration = { seq, name, match, startedAt }
  const decide = (message: { seq: number; payload: string } | null) => {
    if (message !== null) {
      rt.complete(step, { ok: true, output: message.payload }, message.seq)
    } else if (deadline !== null && deadline <= rt.clock.now()) {
      const error = new EventTimeoutError(name, timeoutMs ?? deadline - startedAt)
      rt.complete(step, { ok: false, error: encodeError(error, rt.codec) })
    } else {
      // No re-evaluation in a busy turn (no `recheck`, unlike signal waits): publishers reach
      // the wait only once it is registered, with the run's suspend, and that suspend reads the
      // log for what it missed — a timeout decided before then could pass over an event.
      rt.waitDurably(
        seq,
        deadline,
        `event "${name}"`,
        pending,
        eventMessageName(seq),
        undefined,
        registration,
        registered,
      )
    }
  }
  // Registered by an earlier turn, and nothing in the inbox: that turn's read of the log may
  // never have happened (its process died right after the suspend), so read it before
  // deciding — a timeout decided first would pass over an event published in that gap. A
  // turn kept in the run cache decides the same way when it resumes.
  const registered = () => {
    const message = rt.takeMessage(eventMessageName(seq))
    if (message === null) rt.catchUpEvent(registration, decide)
    else decide(message)
  }
  if (record !== undefined) registered()
  else decide(rt.takeMessage(eventMessageName(seq)))
  return outcome
}
