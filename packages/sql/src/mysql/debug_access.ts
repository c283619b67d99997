/**
 * The SqlPool of each store, for the package's own tests and benchmarks (statement counts).
 * Not exported from the package entry: nothing else should reach past the StateStore interface.
 */
import type { SqlPool } from '../shared/driver.ts'

export const poolOfStore = new WeakMap<object, SqlPool>()
