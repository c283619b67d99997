import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Named queues: the Postgres migration 14 in MySQL/MariaDB types. Queue names and fairness
 * keys are VARBINARY like run ids (byte for byte, sorted by code point): at most 200 code
 * points, 800 bytes of UTF-8, so every key stays under InnoDB's 3072-byte limit. New tables
 * only: idempotent as they are (CREATE TABLE IF NOT EXISTS, the indexes inside).
 */
export const queues: Migration = {
  revision: 14,
  name: 'queues',
  statements: (t: Tables) => [
    `CREATE TABLE IF NOT EXISTS ${t.queues} (
  name VARBINARY(800) NOT NULL,
  concurrency INT NOT NULL,
  next_order BIGINT NOT NULL,
  grants BIGINT NOT NULL,
  PRIMARY KEY (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    `CREATE TABLE IF NOT EXISTS ${t.queueItems} (
  queue VARBINARY(800) NOT NULL,
  run_key BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  attempt BIGINT NOT NULL,
  priority SMALLINT NOT NULL,
  fairness_key VARBINARY(800) NOT NULL,
  item_order BIGINT NOT NULL,
  enqueued_at BIGINT NOT NULL,
  granted SMALLINT NOT NULL,
  PRIMARY KEY (queue, run_key, seq),
  KEY cairn_queue_items_run (run_key),
  KEY cairn_queue_items_line (queue, granted, priority DESC, item_order)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    `CREATE TABLE IF NOT EXISTS ${t.queueKeys} (
  queue VARBINARY(800) NOT NULL,
  fairness_key VARBINARY(800) NOT NULL,
  last_grant BIGINT NOT NULL,
  PRIMARY KEY (queue, fairness_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
}
