/**
 * Dates as ISO 8601 text (`2024-01-01T00:00:00.000Z`), readable in a dashboard. Formatting and
 * parsing the common case by hand is two to three times faster than toISOString and the Date
 * string parser, which matters when a step result holds a Date; every other case (years
 * outside 1000-9999, any other text) goes to the built-ins, so results are the same.
 */

// Zero-padded digits by value: a table lookup beats formatting numbers on every call.
const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'))
const THREE_DIGITS = Array.from({ length: 1000 }, (_, n) => String(n).padStart(3, '0'))

/** `toISOString` of a valid Date. */
export function isoString(d: Date): string {
  const year = d.getUTCFullYear()
  if (year < 1000 || year > 9999) return d.toISOString()
  const date = `${year}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}`
  const time = `${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`
  return `${date}T${time}.${THREE_DIGITS[d.getUTCMilliseconds()] as string}Z`
}

function two(n: number): string {
  return TWO_DIGITS[n] as string
}

const CANONICAL = /^[1-9]\d{3}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

/** The Date `text` (as isoString wrote it) stands for. */
export function parseIsoDate(text: string): Date {
  // Date.UTC reads years 0-99 as 1900-1999, hence the leading [1-9] (years 1000-9999).
  if (!CANONICAL.test(text)) return new Date(text)
  const time = Date.UTC(
    digits(text, 0, 4),
    digits(text, 5, 2) - 1,
    digits(text, 8, 2),
    digits(text, 11, 2),
    digits(text, 14, 2),
    digits(text, 17, 2),
    digits(text, 20, 3),
  )
  return new Date(time)
}

function digits(text: string, start: number, count: number): number {
  let n = 0
  for (let i = start; i < start + count; i++) n = n * 10 + text.charCodeAt(i) - 48
  return n
}
