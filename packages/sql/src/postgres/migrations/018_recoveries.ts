import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Lease takeovers since a run last moved on: the SQLite migration 18 in Postgres types.
 * Adding a NOT NULL column with a constant default rewrites no row on Postgres 11+; runs from
 * before read as never taken over. Only read back, never searched by, so no index.
 */
export const recoveries: Migration = {
  revision: 18,
  name: 'recoveries',
  statements: (t: Tables) => [
    `ALTER TABLE ${t.runs} ADD COLUMN recoveries INTEGER NOT NULL DEFAULT 0`,
  ],
}
