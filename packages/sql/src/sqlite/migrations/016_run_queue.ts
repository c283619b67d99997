import type { Migration } from './migration.ts'

/**
 * A whole run's queue (NewRun.queue, RunRecord.queue): the name it was started on, or NULL.
 * Written by the create and only read back (the run's slot itself is a queue item, migration
 * 14), so no index. A nullable column without a default: SQLite adds it without rewriting a
 * row, runs from before read as on no queue, and an engine older than this migration,
 * inserting without the column during a rolling deploy, writes runs on no queue.
 */
export const runQueue: Migration = {
  revision: 16,
  name: 'run_queue',
  sql: `
ALTER TABLE cairn_runs ADD COLUMN queue TEXT;
`,
}
