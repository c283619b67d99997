import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Blocked runs: the SQLite migration 10 in Postgres types (`waiting` with `blocked_epoch` =
 * the suspend's lease epoch reads `blocked`; the claimable-status CHECK is unchanged, so no
 * constraint is re-validated over the table). Nullable without default: rewrites nothing.
 */
export const blocked: Migration = {
  revision: 10,
  name: 'blocked',
  statements: (t: Tables) => [`ALTER TABLE ${t.runs} ADD COLUMN blocked_epoch BIGINT`],
}
