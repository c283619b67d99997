import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Schedules: the Postgres migration 19 in MySQL/MariaDB types. Ids, workflow names, versions,
 * run ids and lease owners are VARBINARY(1020) like run ids: byte for byte, so sorted by code
 * point, and no two ids collide (a `_bin` collation pads: `'a' = 'a '`). The spec is LONGTEXT
 * (TEXT stops at 64 KiB; a spec holds up to 1 MiB characters). `paused` is 0/1. MySQL has no
 * partial index: `cairn_schedules_due (paused, next_at, id, workflow)` puts the unpaused ones
 * first, those without a next window (NULL) at the head of each, so a claim's `paused = 0 AND
 * next_at <= ?` is one range in claim order (2,050 bytes, under InnoDB's 3072-byte limit).
 * New table only: idempotent as it is (CREATE TABLE IF NOT EXISTS, the index inside).
 */
export const schedules: Migration = {
  revision: 19,
  name: 'schedules',
  statements: (t: Tables) => [
    `CREATE TABLE IF NOT EXISTS ${t.schedules} (
  id VARBINARY(1020) NOT NULL,
  workflow VARBINARY(1020) NOT NULL,
  version VARBINARY(1020) NULL,
  spec LONGTEXT NOT NULL,
  paused TINYINT NOT NULL,
  next_at BIGINT NULL,
  last_window BIGINT NULL,
  last_run_id VARBINARY(1020) NULL,
  buffered_window BIGINT NULL,
  fired BIGINT NOT NULL,
  skipped BIGINT NOT NULL,
  revision BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  lease_owner VARBINARY(1020) NULL,
  lease_until BIGINT NULL,
  PRIMARY KEY (id),
  KEY cairn_schedules_due (paused, next_at, id, workflow),
  CONSTRAINT cairn_schedules_paused CHECK (paused IN (0, 1))
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
}
