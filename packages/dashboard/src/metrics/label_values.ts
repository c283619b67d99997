/**
 * Bounded label values. Workflow and step names come from code, but nothing stops a step
 * name built from data (`charge-${orderId}`), and every distinct value is a new time series
 * kept for the life of the process. So: names only (never run ids), cut to MAX_LENGTH
 * characters, and at most `limit` distinct values per label; later newcomers are counted
 * under OVERFLOW_VALUE instead.
 */

/** The label value standing for every name beyond the limit. */
export const OVERFLOW_VALUE = '_other'

const MAX_LENGTH = 128

export class LabelValues {
  readonly #seen = new Set<string>()
  readonly #limit: number

  constructor(limit: number) {
    this.#limit = limit
  }

  /** The value to record for `name`: itself (cut), or OVERFLOW_VALUE once the limit is reached. */
  of(name: string): string {
    const value = name.length > MAX_LENGTH ? name.slice(0, MAX_LENGTH) : name
    if (this.#seen.has(value)) return value
    if (this.#seen.size >= this.#limit) return OVERFLOW_VALUE
    this.#seen.add(value)
    return value
  }
}
