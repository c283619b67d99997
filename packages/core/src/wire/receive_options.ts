/**
 * The check every transport's worker half applies to `receive`'s options (the contract's
 * ReceiveOptions), so each refuses a bad `max` or `holdMs` the same way.
 */
import type { ReceiveOptions } from '../contracts/transport.ts'
import { InvalidArgumentError } from '../errors/index.ts'

export function checkReceiveOptions(options: ReceiveOptions): void {
  if (!Number.isInteger(options.max) || options.max < 1)
    throw new InvalidArgumentError(`receive: max must be an integer ≥ 1, got ${options.max}`)
  if (!Number.isInteger(options.holdMs) || options.holdMs < 1)
    throw new InvalidArgumentError(`receive: holdMs must be an integer ≥ 1, got ${options.holdMs}`)
}
