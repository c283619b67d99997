import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Slot leases: the Postgres migration 22 in MySQL/MariaDB types. The queue and the owner are
 * VARBINARY like queue names (at most 200 code points, 800 bytes of UTF-8 each: the key stays
 * under InnoDB's 3072-byte limit). New table only: idempotent as it is (CREATE TABLE IF NOT
 * EXISTS, the key inside).
 */
export const queueLeases: Migration = {
  revision: 22,
  name: 'queue_leases',
  statements: (t: Tables) => [
    `CREATE TABLE IF NOT EXISTS ${t.queueLeases} (
  queue VARBINARY(800) NOT NULL,
  owner VARBINARY(800) NOT NULL,
  slots INT NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (queue, owner)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
}
