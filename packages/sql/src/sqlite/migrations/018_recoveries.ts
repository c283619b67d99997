import type { Migration } from './migration.ts'

/**
 * Lease takeovers since a run last moved on (RunRecord.recoveries): a claim of a `running` run
 * adds 1; a suspend, a release, a requeue, an unpark and a renewal reporting progress set it
 * to 0. NOT NULL DEFAULT 0 like `priority` (migration 13): SQLite adds it without rewriting a
 * row, runs from before read as never taken over, and an engine older than this migration,
 * inserting without the column during a rolling deploy, writes runs at 0. Only read back,
 * never searched by, so no index.
 */
export const recoveries: Migration = {
  revision: 18,
  name: 'recoveries',
  sql: `
ALTER TABLE cairn_runs ADD COLUMN recoveries INTEGER NOT NULL DEFAULT 0;
`,
}
