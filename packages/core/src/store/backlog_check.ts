/** Every store refuses a `backlog(now)` whose time is not an integer ms timestamp alike. */
import { InvalidArgumentError } from '../errors/index.ts'

export function checkBacklogTime(now: number): void {
  if (Number.isSafeInteger(now) && now >= 0) return
  throw new InvalidArgumentError(`backlog: now must be an integer >= 0 (ms), got ${String(now)}`, {
    details: { now },
  })
}
