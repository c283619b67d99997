/**
 * The values a careless caller sends where a number belongs, and the way every package's
 * public-number test judges a call with them: refused with E_INVALID_ARGUMENT, or taken with
 * its documented meaning — settled within a bound, never a hang.
 */
import assert from 'node:assert/strict'

export const BAD_AND_EDGE: readonly unknown[] = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  -1,
  0,
  0.5,
  2 ** 31,
  2 ** 53,
  '5s',
  '100',
  {},
  [],
  null,
  true,
]

/** An integer within [min, max]: the domain most public numbers document. */
export const int = (v: unknown, min: number, max: number): boolean =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max

export interface NumberEntry {
  name: string
  /** The documented domain: true when `value` must be taken, false when it must be refused. */
  accepts(value: unknown): boolean
  /** Makes the call with `value`; resolves once it was taken, rejects when refused. */
  call(value: unknown): Promise<unknown>
}

/** Settles within a bound (a refusal or an acceptance, never a hang), with the code if refused. */
export async function outcomeOf(entry: NumberEntry, value: unknown): Promise<'taken' | string> {
  // A call that throws before it returns a promise is a refusal like any other.
  const call = Promise.resolve()
    .then(() => entry.call(value))
    .then(() => 'taken' as const)
    .catch((error: { code?: string; name?: string }) => error.code ?? error.name ?? 'unknown')
  const hung = new Promise<string>((resolve) => setTimeout(() => resolve('hung'), 10_000).unref())
  return Promise.race([call, hung])
}

/** Feeds `entry` every probe value and asserts each outcome is the documented one. */
export async function assertEveryProbe(
  entry: NumberEntry,
  values: readonly unknown[] = BAD_AND_EDGE,
): Promise<void> {
  for (const value of values) {
    const got = await outcomeOf(entry, value)
    const want = entry.accepts(value) ? 'taken' : 'E_INVALID_ARGUMENT'
    assert.equal(got, want, `${entry.name} with ${describeValue(value)}`)
  }
}

export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value)
  if (Array.isArray(value)) return '[]'
  if (typeof value === 'object' && value !== null) return '{}'
  return String(value)
}
