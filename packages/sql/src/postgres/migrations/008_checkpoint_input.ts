import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * A registered step's encoded input with its checkpoint: the SQLite migration 8 in Postgres
 * types. Nullable without default: adding it rewrites nothing, and the NULL that rows of
 * local steps (the hot path) store takes a bit of the row's null bitmap, no data bytes.
 */
export const checkpointInput: Migration = {
  revision: 8,
  name: 'checkpoint_input',
  statements: (t: Tables) => [`ALTER TABLE ${t.checkpoints} ADD COLUMN input TEXT`],
}
