/**
 * Durations as users write them: a number of milliseconds or a string such as '30s',
 * '2h', '1.5m', '250ms', '1d'. Anything else is rejected, never guessed.
 */
import { InvalidArgumentError } from '../errors/index.ts'

export type Duration = number | string

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
}
const PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/

/** Milliseconds in `value`, an integer ≥ 0; throws E_INVALID_ARGUMENT naming `what`. */
export function toMilliseconds(value: Duration, what = 'duration'): number {
  const ms = typeof value === 'number' ? value : parseText(value.trim(), what)
  if (!Number.isFinite(ms) || ms < 0) {
    throw new InvalidArgumentError(
      `${what} must be a finite, non-negative duration, got ${String(value)}`,
    )
  }
  return Math.ceil(ms)
}

function parseText(text: string, what: string): number {
  const match = PATTERN.exec(text)
  if (match === null) {
    throw new InvalidArgumentError(
      `${what} "${text.slice(0, 40)}" is not a duration (use ms or '250ms', '30s', '5m', '2h', '1d', '1w')`,
    )
  }
  return Number(match[1]) * (UNIT_MS[match[2] as string] as number)
}
