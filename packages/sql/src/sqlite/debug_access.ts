/**
 * The open connection of each store, for the package's own tests (simulating a full disk,
 * inspecting PRAGMAs). Not exported from the package entry: nothing else should reach past
 * the StateStore interface.
 */
import type { DatabaseSync } from 'node:sqlite'

export const connectionOfStore = new WeakMap<object, DatabaseSync>()
