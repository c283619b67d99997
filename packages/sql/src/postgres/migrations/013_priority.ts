import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Run priority: the SQLite migration 13 in Postgres types. Adding a NOT NULL column with a
 * constant default rewrites no row on Postgres 11+; the index is partial like the claim
 * index, so it holds the claimable runs only.
 */
export const priority: Migration = {
  revision: 13,
  name: 'priority',
  statements: (t: Tables) => [
    `ALTER TABLE ${t.runs} ADD COLUMN priority SMALLINT NOT NULL DEFAULT 0`,
    `CREATE INDEX cairn_runs_priority ON ${t.runs} (priority, available_at, workflow, version)
      WHERE available_at IS NOT NULL`,
  ],
}
