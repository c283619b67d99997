/**
 * Step functions that fail on purpose, for testing retries: `failTimes(2, fn)` throws on its
 * first two calls and calls `fn` from the third on. It wraps either shape of step work — a
 * `ctx.localStep` function `(step) => …` or a registered step's handler `(input, step) => …`.
 *
 *   const charge = failTimes(2, () => 'charged')
 *   t.engine.register('pay', 1, (ctx) => ctx.localStep('charge', charge, { retries: 3 }))
 *   …
 *   assert.equal(charge.calls, 3)
 *
 * It counts calls in this process, not the durable attempts: a run recovered by another engine
 * (or after a restart) meets a fresh wrapper, and a wrapper shared by several runs or steps
 * fails only the first `times` calls among them all. Make one per step under test. The
 * durable count is `StepInfo.attempts` (`expectRun(…).toHaveAttempts`).
 */
import type { StepContext } from '../execution/types.ts'
import { checkInteger, NUMBER_RANGES } from '../util/numbers.ts'

/** What an injected failure throws: an error (thrown each time) or a factory given the call number. */
export type InjectedError = Error | ((call: number) => Error)

/** What a `failTimes` wrapper adds to the function it wraps. */
export interface CallCount {
  /** Calls so far, failed and delegated alike. */
  readonly calls: number
}

/**
 * `fn` failing its first `times` calls (an integer from 0 to 1 000 000, else
 * E_INVALID_ARGUMENT), then calling through. Each failure throws `error` (an Error or a
 * factory receiving the 1-based call number), by default a plain retryable
 * `InjectedFailure: injected failure <call> of <times>` — a `FatalError` ends the step at once.
 */
export function failTimes<A extends unknown[] = [step: StepContext], R = unknown>(
  times: number,
  fn: (...args: A) => R,
  error?: InjectedError,
): ((...args: A) => R) & CallCount {
  const failures = checkInteger(times, 'failTimes times', { min: 0, max: NUMBER_RANGES.count.max })
  let calls = 0
  const wrapper = (...args: A): R => {
    calls += 1
    if (calls <= failures) throw injected(error, calls, failures)
    return fn(...args)
  }
  Object.defineProperty(wrapper, 'calls', { get: () => calls, enumerable: true })
  return wrapper as typeof wrapper & CallCount
}

/** `fn` failing its first call only: `failTimes(1, fn, error)`. */
export function failOnce<A extends unknown[] = [step: StepContext], R = unknown>(
  fn: (...args: A) => R,
  error?: InjectedError,
): ((...args: A) => R) & CallCount {
  return failTimes(1, fn, error)
}

function injected(error: InjectedError | undefined, call: number, times: number): Error {
  if (typeof error === 'function') return error(call)
  if (error !== undefined) return error
  const failure = new Error(`injected failure ${call} of ${times}`)
  failure.name = 'InjectedFailure'
  return failure
}
