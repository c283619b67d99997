import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * A whole run's queue: the SQLite migration 16 in Postgres types. `COLLATE "C"` like every
 * queue name (migration 14), so it compares with `cairn_queue_items.queue` by code point (two
 * columns of different collations cannot be compared at all). Nullable without a default:
 * adding it rewrites no row, and runs from before read as on no queue. Only read back, never
 * searched or sorted by, so no index.
 */
export const runQueue: Migration = {
  revision: 16,
  name: 'run_queue',
  statements: (t: Tables) => [`ALTER TABLE ${t.runs} ADD COLUMN queue TEXT COLLATE "C" NULL`],
}
