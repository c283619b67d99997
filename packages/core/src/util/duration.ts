/**
 * Durations as users write them: a number of milliseconds or a string such as '30s',
 * '2h', '1.5m', '250ms', '1d', or with the unit spelled out ('7 days', '1 hour', '90 minutes',
 * as users of other engines write them). Anything else is rejected, never guessed.
 */
import { InvalidArgumentError } from '../errors/index.ts'
import { MAX_TIME_MS } from './numbers.ts'

export type Duration = number | string

const UNIT_MS: Record<string, number> = {
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
}
/** Spelled-out units (singular; a trailing "s" is accepted) and their short form. */
const LONG_UNITS: Record<string, keyof typeof UNIT_MS> = {
  millisecond: 'ms',
  msec: 'ms',
  second: 's',
  sec: 's',
  minute: 'm',
  min: 'm',
  hour: 'h',
  hr: 'h',
  day: 'd',
  week: 'w',
}
const PATTERN = /^(\d+(?:\.\d+)?)\s*([a-z]+)$/

/**
 * Milliseconds in `value`, an integer from 0 up to the Date range (MAX_TIME_MS); throws
 * E_INVALID_ARGUMENT naming `what` for anything else (NaN, Infinity, negative, objects).
 */
export function toMilliseconds(value: Duration, what = 'duration'): number {
  if (typeof value !== 'number' && typeof value !== 'string') {
    throw new InvalidArgumentError(
      `${what} must be milliseconds or a duration string such as '30s', got a ${value === null ? 'null' : typeof value}`,
    )
  }
  const ms = typeof value === 'number' ? value : parseText(value.trim(), what)
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_TIME_MS) {
    throw new InvalidArgumentError(
      `${what} must be a finite, non-negative duration a Date can hold, got ${String(value).slice(0, 40)}`,
    )
  }
  return Math.ceil(ms)
}

function parseText(text: string, what: string): number {
  const match = PATTERN.exec(text)
  const unit = match === null ? undefined : unitOf(match[2] as string)
  if (match === null || unit === undefined) {
    throw new InvalidArgumentError(
      `${what} "${text.slice(0, 40)}" is not a duration (use ms or '250ms', '30s', '5m', '2h', '1d', '1w')`,
    )
  }
  return Number(match[1]) * (UNIT_MS[unit] as number)
}

function unitOf(word: string): keyof typeof UNIT_MS | undefined {
  if (Object.hasOwn(UNIT_MS, word)) return word
  if (Object.hasOwn(LONG_UNITS, word)) return LONG_UNITS[word]
  const singular = word.endsWith('s') ? word.slice(0, -1) : undefined
  return singular !== undefined && Object.hasOwn(LONG_UNITS, singular)
    ? LONG_UNITS[singular]
    : undefined
}
