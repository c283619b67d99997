import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Queue rates (QueueRequest.rateLimit):
 * - `cairn_queues` gains the newest writer's rate: `rate_limit` grants per `rate_period_ms`
 *   (both NULL: no rate). Nullable columns without a default: adding them rewrites no row.
 * - `cairn_queue_grant_log`: the time of each grant a rate-limited queue made, under its grant
 *   number (the queue's `grants` counter), so a pass reads the grants it looks back at as one
 *   range of the primary key. Pruned by the passes to the rows a rate may still look at.
 * Queue names are `COLLATE "C"` as in migration 14.
 */
export const queueRates: Migration = {
  revision: 15,
  name: 'queue_rates',
  statements: (t: Tables) => [
    `ALTER TABLE ${t.queues} ADD COLUMN rate_limit INTEGER NULL`,
    `ALTER TABLE ${t.queues} ADD COLUMN rate_period_ms INTEGER NULL`,
    `CREATE TABLE ${t.queueGrantLog} (
  queue TEXT COLLATE "C" NOT NULL,
  grant_no BIGINT NOT NULL,
  granted_at BIGINT NOT NULL,
  PRIMARY KEY (queue, grant_no)
)`,
  ],
}
