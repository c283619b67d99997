import type { Migration } from './migration.ts'

/**
 * Run priority (RunRecord.priority). NOT NULL DEFAULT 0, so an engine older than this
 * migration, inserting without the column during a rolling deploy, still writes runs every
 * claim sees (at 0); SQLite adds such a column without rewriting a row. The partial index
 * holds the claimable runs by priority level, each level in `available_at` order: a claim
 * reads one level at a time and never walks a level's sleeping runs or live leases.
 */
export const priority: Migration = {
  revision: 13,
  name: 'priority',
  sql: `
ALTER TABLE cairn_runs ADD COLUMN priority INTEGER NOT NULL DEFAULT 0;
CREATE INDEX cairn_runs_priority ON cairn_runs (priority, available_at, workflow, version)
  WHERE available_at IS NOT NULL;
`,
}
