import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * The message names that wake a waiting run: the SQLite migration 9 in Postgres types
 * (` name name `, matched with strpos; NULL: any message wakes), with the lease epoch that
 * wrote them (names of another epoch count as NULL). Nullable without default: adding them
 * rewrites nothing.
 */
export const wakeOn: Migration = {
  revision: 9,
  name: 'wake_on',
  statements: (t: Tables) => [
    `ALTER TABLE ${t.runs} ADD COLUMN wake_on TEXT`,
    `ALTER TABLE ${t.runs} ADD COLUMN wake_epoch BIGINT`,
  ],
}
