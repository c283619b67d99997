import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent, addIndexUnlessPresent } from './unless_present.ts'

/**
 * Singleton admission: the Postgres migration 12 in MySQL/MariaDB types. Scope and key are
 * VARBINARY like the names they hold (a scope is a workflow name; a key is at most 256 code
 * points, 1024 bytes of UTF-8): the index (1020 + 1024 + 16 + 8 bytes) and the key table's
 * primary key stay under InnoDB's 3072-byte limit. No partial indexes here: runs without a
 * key sit in the index under NULL, never read. Idempotent, statement by statement.
 */
export const admission: Migration = {
  revision: 12,
  name: 'admission',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'admission_scope VARBINARY(1020) NULL'),
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'admission_key VARBINARY(1024) NULL'),
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'admission_seq BIGINT NULL'),
    ...addIndexUnlessPresent(
      t,
      'cairn_runs',
      t.runs,
      'cairn_runs_admission',
      'admission_scope, admission_key, status, admission_seq',
    ),
    `CREATE TABLE IF NOT EXISTS ${t.admissionKeys} (
  scope VARBINARY(1020) NOT NULL,
  admission_key VARBINARY(1024) NOT NULL,
  lim BIGINT NOT NULL,
  next_seq BIGINT NOT NULL,
  PRIMARY KEY (scope, admission_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
}
