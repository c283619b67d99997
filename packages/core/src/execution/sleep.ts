/**
 * `ctx.sleep` / `ctx.sleepUntil`: durable timers. The due time is fixed at the first call
 * and recorded before the run suspends, so a restart never moves it earlier (or later); the
 * firing is recorded as an outcome, so the sleep fires once and replays in order.
 */
import { InvalidArgumentError } from '../errors/index.ts'
import { toMilliseconds, type Duration } from '../util/duration.ts'
import { dueTime, MAX_TIME_MS } from '../util/numbers.ts'
import type { TurnRuntime } from './runtime.ts'
import { waitingRecord } from './waiting_record.ts'

export function sleep(rt: TurnRuntime, duration: Duration): Promise<void> {
  const ms = toMilliseconds(duration, 'sleep duration')
  return sleepUntilTime(
    rt,
    dueTime(rt.clock.now(), ms, 'sleep'),
    `sleep ${typeof duration === 'number' ? `${ms}ms` : duration}`,
  )
}

export function sleepUntil(rt: TurnRuntime, until: Date | number): Promise<void> {
  const time = until instanceof Date ? until.getTime() : until
  if (typeof time !== 'number' || !Number.isFinite(time) || Math.abs(time) > MAX_TIME_MS) {
    throw new InvalidArgumentError(
      `sleepUntil expects a valid Date or a time in milliseconds a Date can hold, got ${String(until)}`,
    )
  }
  return sleepUntilTime(rt, Math.ceil(time), 'sleep until')
}

// Every sleep has the identity ("sleep", kind sleep): its duration may be computed, and a
// recorded due time wins over a recomputed one anyway.
const name = 'sleep'

function sleepUntilTime(rt: TurnRuntime, requestedWakeAt: number, label: string): Promise<void> {
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, name, 'sleep')
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<void>(seq)
  if (record?.status === 'completed') return outcome
  const wakeAt = record?.wakeAt ?? requestedWakeAt
  const startedAt = record?.startedAt ?? rt.clock.now()
  const pending =
    record === undefined
      ? waitingRecord({ runId: rt.runId, seq, name, kind: 'sleep', wakeAt, startedAt })
      : null
  const fire = () =>
    rt.complete(
      { seq, name, kind: 'sleep', attempts: 1, startedAt, wakeAt },
      { ok: true, output: null },
    )
  if (wakeAt <= rt.clock.now()) fire()
  else rt.waitUntil(seq, wakeAt, label, pending, fire)
  return outcome
}
