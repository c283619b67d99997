/**
 * One validation for every public number — durations, timeouts, limits, counts — so a NaN, an
 * Infinity, a string or an object is refused at the call with E_INVALID_ARGUMENT naming the
 * value, never passed on to a timer (Node clamps bad delays to 1 ms: a hot loop) or to a Date
 * (out of range: a RangeError far from the call). `Infinity` is accepted only where an option
 * documents it as "forever".
 */
import { InvalidArgumentError } from '../errors/index.ts'

/** The last instant a JS Date can hold (+275760-09-13): every time Cairn records stays within. */
export const MAX_TIME_MS = 8_640_000_000_000_000

/** The longest delay one `setTimeout` holds; longer waits are chained (see longTimeout). */
export const MAX_TIMER_MS = 2_147_483_647

export interface IntegerRange {
  min: number
  max: number
}

/**
 * The ranges public options share, so every package (engine, stores, dashboard, CLI, the
 * AdonisJS config) refuses the same values the same way.
 */
export const NUMBER_RANGES = {
  /** Things at once (runs, writes per batch, connections): far above any machine, far below a typo's 2^53. */
  count: { min: 1, max: 1_000_000 },
  /** A lease, or the period of a repeating timer: at least 1 ms, at most what one setTimeout holds. */
  periodMs: { min: 1, max: MAX_TIMER_MS },
  /** How long to wait for something: 0 (do not wait) up to the Date range. */
  timeoutMs: { min: 0, max: MAX_TIME_MS },
} as const satisfies Record<string, IntegerRange>

/** `value` as an integer within `range`; E_INVALID_ARGUMENT naming `what` otherwise. */
export function checkInteger(value: unknown, what: string, range: IntegerRange): number {
  if (typeof value === 'number' && Number.isInteger(value)) {
    if (value >= range.min && value <= range.max) return value
  }
  throw new InvalidArgumentError(
    `${what} must be an integer from ${range.min} to ${range.max}, got ${describe(value)}`,
    { details: { what, value: typeof value === 'number' ? value : describe(value) } },
  )
}

/**
 * A timeout in milliseconds where `undefined` and `Infinity` mean "no time limit" (returned as
 * `Infinity`); otherwise an integer from 0 up to the Date range.
 */
export function checkTimeoutOrForever(value: unknown, what: string): number {
  if (value === undefined || value === Number.POSITIVE_INFINITY) return Number.POSITIVE_INFINITY
  return checkInteger(value, what, { min: 0, max: MAX_TIME_MS })
}

/**
 * `now + ms`, the time something falls due; E_INVALID_ARGUMENT when it would lie past the last
 * instant a Date can hold (a wait of 10^15 years is a bug, and could not be recorded).
 */
export function dueTime(now: number, ms: number, what: string): number {
  const due = now + ms
  if (due <= MAX_TIME_MS) return due
  throw new InvalidArgumentError(
    `${what} of ${ms} ms would end after the last date a Date can hold (+275760-09-13)`,
    { details: { what, ms } },
  )
}

/**
 * setTimeout for any delay up to the Date range: delays above MAX_TIMER_MS are chained instead
 * of being clamped to 1 ms. Returns the cancel function. `unref`: the timer alone does not
 * keep the process alive.
 */
export function longTimeout(ms: number, fn: () => void, unref = false): () => void {
  let handle: NodeJS.Timeout
  const due = Date.now() + ms
  const arm = () => {
    const left = due - Date.now()
    handle = setTimeout(left > MAX_TIMER_MS ? arm : fn, Math.min(Math.max(left, 0), MAX_TIMER_MS))
    if (unref) handle.unref()
  }
  arm()
  return () => clearTimeout(handle)
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40))
  if (typeof value === 'number' || typeof value === 'bigint') return String(value)
  if (value === null) return 'null'
  return Array.isArray(value) ? 'an array' : `a ${typeof value}`
}
