/**
 * `ctx.waitForSignal(name, { timeoutMs })`: receive the oldest signal sent to this run under
 * `name`, or fail with SignalTimeoutError once `timeoutMs` has passed. A signal sent before
 * the wait exists is kept in the run's inbox and received at once. The received payload is
 * recorded at the wait's position (consuming the message in the same write), so replay gives
 * the same value and no signal is received twice. Signal waits never hold the lease: with no
 * signal at hand the run suspends, and a signal (or the timeout) wakes it.
 */
import { SignalTimeoutError } from '../errors/index.ts'
import { encodeError } from './outcome.ts'
import { SIGNAL_WAIT_OPTIONS } from './option_specs.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import type { TurnRuntime } from './runtime.ts'
import { checkWaitTimeout } from './wait_timeout.ts'
import { checkSignalName } from './wait_names.ts'
import type { SignalWaitOptions } from './types.ts'
import { waitingRecord } from './waiting_record.ts'

export function waitForSignal<T>(
  rt: TurnRuntime,
  name: string,
  options: SignalWaitOptions = {},
): Promise<T> {
  checkSignalName(name)
  checkOptionKeys(options, SIGNAL_WAIT_OPTIONS, `ctx.waitForSignal("${name}")`)
  return waitForMessage<T>(rt, name, options)
}

/** The wait itself, for any message name (Cairn's own included: webhook callbacks). */
export function waitForMessage<T>(
  rt: TurnRuntime,
  name: string,
  options: SignalWaitOptions = {},
): Promise<T> {
  const timeoutMs = checkWaitTimeout(options.timeoutMs, 'waitForSignal', rt.clock.now())
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, name, 'signal')
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<T>(seq)
  if (record?.status === 'completed' || record?.status === 'failed') return outcome
  const startedAt = record?.startedAt ?? rt.clock.now()
  const deadline = record?.wakeAt ?? (timeoutMs === null ? null : startedAt + timeoutMs)
  const step = { seq, name, kind: 'signal' as const, attempts: 1, startedAt, wakeAt: deadline }
  // A deadline is fixed at the first call and recorded, so a restart never moves it.
  const pending =
    record === undefined && deadline !== null
      ? waitingRecord({ runId: rt.runId, seq, name, kind: 'signal', wakeAt: deadline, startedAt })
      : null
  // Now, and again whenever a busy turn reads a new message or the deadline comes.
  const evaluate = (): void => {
    const message = rt.takeMessage(name)
    if (message !== null) {
      rt.complete(step, { ok: true, output: message.payload }, message.seq)
    } else if (deadline !== null && deadline <= rt.clock.now()) {
      const error = new SignalTimeoutError(name, timeoutMs ?? deadline - startedAt)
      rt.complete(step, { ok: false, error: encodeError(error, rt.codec) })
    } else {
      rt.waitDurably(seq, deadline, `signal "${name}"`, pending, name, evaluate)
    }
  }
  evaluate()
  return outcome
}
