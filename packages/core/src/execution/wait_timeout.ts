/**
 * The `timeoutMs` of a durable wait (signal, event, update): absent for no timeout, else an
 * integer number of milliseconds >= 0 whose deadline from `now` a Date can hold. Anything else
 * is refused at the call, in the workflow, before a position is taken.
 */
import { checkInteger, dueTime, MAX_TIME_MS } from '../util/numbers.ts'

export function checkWaitTimeout(timeoutMs: unknown, call: string, now: number): number | null {
  if (timeoutMs === undefined) return null
  const ms = checkInteger(timeoutMs, `${call} timeoutMs`, { min: 0, max: MAX_TIME_MS })
  dueTime(now, ms, `${call} timeoutMs`)
  return ms
}
