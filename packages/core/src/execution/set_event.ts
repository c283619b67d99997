/**
 * `ctx.setEvent(key, value)`: publish a piece of this run's state for the outside to read with
 * `engine.getEvent(runId, key)` (progress, a payment link, the current stage). Each call is
 * recorded at its position, so the latest value survives restarts and replays the same; a value
 * the codec refuses throws at the call, recording nothing.
 */
import type { TurnRuntime } from './runtime.ts'
import { checkSignalName } from './wait_names.ts'

export function setEvent(rt: TurnRuntime, key: string, value: unknown): Promise<void> {
  checkSignalName(key, 'an event key')
  // Throws E_NOT_SERIALIZABLE / E_PAYLOAD_TOO_LARGE here, before a position is taken.
  const output = value === undefined ? null : rt.codec.encode(value, `value of event "${key}"`)
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, key, 'set_event')
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<unknown>(seq).then(() => undefined)
  if (record !== undefined) return outcome
  const step = {
    seq,
    name: key,
    kind: 'set_event' as const,
    attempts: 1,
    startedAt: rt.clock.now(),
  }
  rt.complete(step, { ok: true, output })
  return outcome
}
