/**
 * `ctx.sideEffect`: run a non-deterministic function once (no retries) and record its
 * value; replay returns the recorded value. A throw is recorded too and replays as a throw.
 */
import { runOutsideBody } from '../scope/current_context.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { checkStepName } from './local_step.ts'
import { encodeError, encodeValue } from './outcome.ts'
import type { TurnRuntime } from './runtime.ts'

export function sideEffect<T>(
  rt: TurnRuntime,
  fn: () => T | Promise<T>,
  name = 'sideEffect',
): Promise<T> {
  if (typeof fn !== 'function') throw new InvalidArgumentError('sideEffect expects a function')
  checkStepName(name, 'sideEffect name')
  if (!rt.live) return rt.never()
  const seq = rt.takeSeq()
  const record = rt.recorded(seq, name, 'side_effect')
  if (record === null) return rt.never()
  const outcome = rt.awaitOutcome<T>(seq)
  if (record !== undefined) return outcome
  rt.beginWork()
  rt.whenLeaseHeld(() => {
    if (rt.live) void runOnce(rt, seq, name, fn)
    else rt.endWork()
  })
  return outcome
}

/** Runs under the work count `sideEffect` took; ends it. */
async function runOnce(
  rt: TurnRuntime,
  seq: number,
  name: string,
  fn: () => unknown,
): Promise<void> {
  const step = { seq, name, kind: 'side_effect' as const, attempts: 1, startedAt: rt.clock.now() }
  try {
    const value = await runOutsideBody(fn)
    rt.complete(step, encodeValue(value, rt.codec, `value of side effect "${name}"`))
  } catch (error) {
    rt.complete(step, { ok: false, error: encodeError(error, rt.codec) })
  } finally {
    rt.endWork()
  }
}
