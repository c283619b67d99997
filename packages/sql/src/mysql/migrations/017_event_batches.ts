import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Event accumulators: the Postgres migration 17 in MySQL/MariaDB types. Workflow names, ids
 * and event ids are VARBINARY(1020) like run ids, keys VARBINARY(800) like fairness keys (at
 * most 200 code points): byte for byte, sorted by code point, and every index stays under
 * InnoDB's 3072-byte limit (the primary key is 2840 bytes). Payloads are LONGTEXT like the
 * event log's. `is_open` is 1 on the accumulator adds join, NULL on the others: a unique key
 * counts no NULLs. InnoDB checks it row by row, so an append closing a full accumulator and
 * opening the next writes them in that order (statement by statement: no WITH writes here).
 * New tables only: idempotent as they are (CREATE TABLE IF NOT EXISTS, the indexes inside).
 */
export const eventBatches: Migration = {
  revision: 17,
  name: 'event_batches',
  statements: (t: Tables) => [
    `CREATE TABLE IF NOT EXISTS ${t.eventBatches} (
  workflow VARBINARY(1020) NOT NULL,
  batch_key VARBINARY(800) NOT NULL,
  id VARBINARY(1020) NOT NULL,
  mode VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  first_at BIGINT NOT NULL,
  due_at BIGINT NOT NULL,
  size INT NOT NULL,
  is_open TINYINT NULL,
  lease_owner VARBINARY(1020) NULL,
  lease_until BIGINT NULL,
  PRIMARY KEY (workflow, batch_key, id),
  UNIQUE KEY cairn_event_batches_open (workflow, batch_key, is_open),
  KEY cairn_event_batches_due (due_at, id, workflow),
  KEY cairn_event_batches_leased (lease_until),
  CONSTRAINT cairn_event_batches_open_flag CHECK (is_open = 1),
  CONSTRAINT cairn_event_batches_mode CHECK (mode IN ('debounce', 'batch'))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    `CREATE TABLE IF NOT EXISTS ${t.eventBatchItems} (
  workflow VARBINARY(1020) NOT NULL,
  batch_key VARBINARY(800) NOT NULL,
  batch_id VARBINARY(1020) NOT NULL,
  item_no INT NOT NULL,
  event_id VARBINARY(1020) NOT NULL,
  payload LONGTEXT NOT NULL,
  PRIMARY KEY (workflow, batch_key, batch_id, item_no)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
}
