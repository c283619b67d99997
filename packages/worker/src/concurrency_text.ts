/**
 * `--concurrency` as text, one rule for `cairn worker` and `node ace durable:worker`: `8` (a
 * fixed limit, 1..10 000), `adaptive` (default bounds), or `adaptive:MIN-MAX` (adaptive within
 * those bounds). Anything else is refused with E_INVALID_ARGUMENT naming the flag.
 */
import { InvalidArgumentError } from '@cairn/core/errors'
import { adaptiveSettings, type AdaptiveConcurrency } from './adaptive_limit.ts'

const FIXED = /^[1-9][0-9]{0,4}$/
const BOUNDED = /^adaptive:([1-9][0-9]{0,4})-([1-9][0-9]{0,4})$/

export function concurrencyFromText(
  text: string,
  flag = '--concurrency',
): number | 'adaptive' | AdaptiveConcurrency {
  if (FIXED.test(text) && Number(text) <= 10_000) return Number(text)
  if (text === 'adaptive') return 'adaptive'
  const bounds = BOUNDED.exec(text)
  if (bounds !== null) {
    const given: AdaptiveConcurrency = {
      mode: 'adaptive',
      min: Number(bounds[1]),
      max: Number(bounds[2]),
    }
    try {
      adaptiveSettings(given) // the bounds' own rules (min <= max, at most 10 000)
    } catch (error) {
      throw refused(flag, text, error)
    }
    return given
  }
  throw refused(flag, text)
}

function refused(flag: string, text: string, cause?: unknown): InvalidArgumentError {
  return new InvalidArgumentError(
    `${flag} must be an integer from 1 to 10000, "adaptive" or "adaptive:MIN-MAX", got ${JSON.stringify(text)}`,
    { details: { flag: flag.replace(/^--/, '') }, ...(cause === undefined ? {} : { cause }) },
  )
}
