import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Step logs: the Postgres migration 21 in MySQL/MariaDB types. `logs` is LONGTEXT like the
 * other payload columns (TEXT stops at 64 KiB; a record of 10,000 entries of up to 4,096
 * characters each and their fields is many MiB), utf8mb4 with the table's binary collation.
 * New table only: idempotent as it is (CREATE TABLE IF NOT EXISTS, the key inside).
 */
export const stepLogs: Migration = {
  revision: 21,
  name: 'step_logs',
  statements: (t: Tables) => [
    `CREATE TABLE IF NOT EXISTS ${t.stepLogs} (
  run_key BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  logs LONGTEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (run_key, seq)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
}
