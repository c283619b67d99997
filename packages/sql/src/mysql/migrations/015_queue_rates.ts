import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent } from './unless_present.ts'

/**
 * Queue rates: the Postgres migration 15 in MySQL/MariaDB types (instant ADD COLUMNs on
 * MariaDB 10.3+ and MySQL 8.0.12+). The log's queue is VARBINARY(800) like every queue name
 * (migration 14). Idempotent, statement by statement.
 */
export const queueRates: Migration = {
  revision: 15,
  name: 'queue_rates',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_queues', t.queues, 'rate_limit INT NULL'),
    ...addColumnUnlessPresent(t, 'cairn_queues', t.queues, 'rate_period_ms INT NULL'),
    `CREATE TABLE IF NOT EXISTS ${t.queueGrantLog} (
  queue VARBINARY(800) NOT NULL,
  grant_no BIGINT NOT NULL,
  granted_at BIGINT NOT NULL,
  PRIMARY KEY (queue, grant_no)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
}
