/**
 * The numbers a store's options hold, checked with core's one validation (`checkInteger`), so a
 * store refuses NaN, Infinity, fractions, strings and out-of-range values the way the engine does.
 */
import { checkInteger, MAX_TIMER_MS, type IntegerRange } from '@cairn/core/store-kit'

/** Connections in a pool: a server takes hundreds at most; 2^53 is a typo. */
export const POOL_SIZE: IntegerRange = { min: 1, max: 10_000 }

/** A wait the store hands to a timer or to the server (Postgres keeps milliseconds in an int). */
export const WAIT_MS: IntegerRange = { min: 0, max: MAX_TIMER_MS }

/** `value` within `range`, or E_INVALID_ARGUMENT naming `<store> store: <name>`. */
export function storeInteger(
  store: string,
  name: string,
  value: unknown,
  range: IntegerRange,
): number {
  return checkInteger(value, `${store} store: ${name}`, range)
}
