/**
 * One check for a step's `timeoutMs` (local, registered, defineStep): an integer from 1 ms up to
 * the Date range. A bad value would otherwise reach setTimeout, which clamps NaN, Infinity,
 * strings and anything above 2^31 − 1 to 1 ms: every attempt aborted at once.
 */
import { checkInteger, MAX_TIME_MS } from '../util/numbers.ts'

export function checkStepTimeout(timeoutMs: unknown): void {
  if (timeoutMs === undefined) return
  checkInteger(timeoutMs, 'timeoutMs', { min: 1, max: MAX_TIME_MS })
}
