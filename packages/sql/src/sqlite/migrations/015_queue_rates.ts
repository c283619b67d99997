import type { Migration } from './migration.ts'

/**
 * Queue rates (QueueRequest.rateLimit). A queue's rate is the newest writer's, as its
 * concurrency: two nullable columns, both null for a queue without one (no row is rewritten;
 * queues from before have none). `cairn_queue_grant_log` keeps the `now` of each grant a
 * rated queue makes under its grant number (the queue's `grants` counter): a pass reads the
 * few rows its grants look back at and prunes the old ones, each a range of the primary key.
 * Grants made without a rate are not logged.
 */
export const queueRates: Migration = {
  revision: 15,
  name: 'queue_rates',
  sql: `
ALTER TABLE cairn_queues ADD COLUMN rate_limit INTEGER;
ALTER TABLE cairn_queues ADD COLUMN rate_period_ms INTEGER;
CREATE TABLE cairn_queue_grant_log (
  queue TEXT NOT NULL,
  grant_no INTEGER NOT NULL,
  granted_at INTEGER NOT NULL,
  PRIMARY KEY (queue, grant_no)
) STRICT, WITHOUT ROWID;
`,
}
