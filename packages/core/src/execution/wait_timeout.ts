/**
 * The `timeoutMs` of a durable wait (signal, event, update): absent for no timeout, else an
 * integer number of milliseconds >= 0. Anything else is refused at the call, in the workflow,
 * before a position is taken.
 */
import { InvalidArgumentError } from '../errors/index.ts'

export function checkWaitTimeout(timeoutMs: unknown, call: string): number | null {
  if (timeoutMs === undefined) return null
  if (!Number.isSafeInteger(timeoutMs) || (timeoutMs as number) < 0) {
    throw new InvalidArgumentError(
      `${call} timeoutMs must be an integer >= 0, got ${String(timeoutMs)}`,
    )
  }
  return timeoutMs as number
}
