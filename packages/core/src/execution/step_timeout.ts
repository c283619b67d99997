/** One check for a step's `timeoutMs`: a bad value would otherwise reach setTimeout as-is. */
import { InvalidArgumentError } from '../errors/index.ts'

export function checkStepTimeout(timeoutMs: unknown): void {
  if (timeoutMs === undefined) return
  if (!Number.isSafeInteger(timeoutMs) || (timeoutMs as number) < 1) {
    throw new InvalidArgumentError(`timeoutMs must be an integer >= 1, got ${String(timeoutMs)}`, {
      details: { timeoutMs },
    })
  }
}
