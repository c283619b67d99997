/**
 * Run priority (docs/flow-control.md "Run priority"): an integer from MIN_PRIORITY to
 * MAX_PRIORITY on every run, 0 unless given. Claims take higher priority first and, within a
 * priority, the run due longest; `ClaimRequest.oldest` slots go to the runs due longest
 * whatever their priority, which is what keeps a low priority from starving.
 */
import type { ClaimRequest } from '../contracts/index.ts'
import { InvalidArgumentError } from '../errors/index.ts'

export const MIN_PRIORITY = -1000
export const MAX_PRIORITY = 1000
export const DEFAULT_PRIORITY = 0

/**
 * The engine gives one claim slot in OLDEST_SHARE to the run due longest: a run with A
 * claimable runs due before it is claimed within about OLDEST_SHARE × (A + 1) slots.
 */
export const OLDEST_SHARE = 8

/** A priority as given (`where` names the caller), refused unless an integer in range. */
export function checkPriority(value: unknown, where: string): number {
  if (Number.isSafeInteger(value) && (value as number) >= MIN_PRIORITY) {
    if ((value as number) <= MAX_PRIORITY) return value as number
  }
  throw new InvalidArgumentError(
    `${where}: priority is an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}, got ${describe(value)}`,
    { details: { priority: describe(value) } },
  )
}

/** ClaimRequest.oldest: absent is 0; else an integer from 0 to the claim's limit. */
export function oldestShare(request: ClaimRequest): number {
  const { oldest, limit } = request
  if (oldest === undefined) return 0
  if (Number.isSafeInteger(oldest) && oldest >= 0 && oldest <= limit) return oldest
  throw new InvalidArgumentError(
    `claimRuns: oldest must be an integer from 0 to limit (${limit}), got ${describe(oldest)}`,
  )
}

/**
 * How many of the claim slots numbered `claimed + 1 … claimed + free` are multiples of
 * OLDEST_SHARE: the `oldest` of a claim for `free` slots by an engine that has claimed
 * `claimed` runs so far.
 */
export function oldestSlots(claimed: number, free: number): number {
  return Math.floor((claimed + free) / OLDEST_SHARE) - Math.floor(claimed / OLDEST_SHARE)
}

/**
 * The runs a claim took (`byAge`: in `availableAt` order), in claim order: the first `oldest`
 * as they are, the rest by priority, highest first (a stable sort keeps `availableAt` order
 * within a priority). For a claim that took every due run, which read them by age only.
 */
export function inClaimOrder<T>(
  byAge: readonly T[],
  oldest: number,
  priorityOf: (item: T) => number,
): T[] {
  const rest = byAge.slice(oldest).sort((a, b) => priorityOf(b) - priorityOf(a))
  return [...byAge.slice(0, oldest), ...rest]
}

function describe(value: unknown): string {
  if (typeof value === 'number') return String(value)
  if (typeof value === 'string') return JSON.stringify(value)
  return typeof value
}
