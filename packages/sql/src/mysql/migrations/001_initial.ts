import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Runs and checkpoints: the Postgres schema (docs/postgres.md) in MySQL/MariaDB types.
 *
 * - InnoDB, utf8mb4 throughout: 4-byte UTF-8 is stored as it is (utf8mb3 cannot hold it).
 * - Ids, workflow names, versions and lease owners are VARBINARY: compared and ordered byte
 *   for byte, i.e. by code point in UTF-8, which is the order listRuns and its cursor promise.
 *   Not `utf8mb4_bin`: like every `_bin` collation but the NO PAD ones, it ignores trailing
 *   spaces (`'a' = 'a '`), so two ids would collide. 1020 bytes hold the engine's 255
 *   characters; the indexes on them stay under InnoDB's 3072-byte key limit.
 * - Payloads are LONGTEXT: TEXT stops at 64 KiB, and payloads of 1 MiB and more are normal.
 * - Times, epochs, seqs and counts are BIGINT; `key` (a reserved word, quoted) is assigned in
 *   creation order, and checkpoints hang off it, as in Postgres.
 * - The claim index is a full index (MySQL has no partial ones): terminal and parked runs
 *   have a NULL `available_at`, sorted before every due entry, so claims never read them.
 * - Every statement is idempotent (IF NOT EXISTS): DDL commits on its own in MySQL, so a
 *   migration cut short by a crash is run again from its first statement.
 */
export const initial: Migration = {
  revision: 1,
  name: 'initial',
  statements: (t: Tables) => [
    `CREATE TABLE IF NOT EXISTS ${t.runs} (
  \`key\` BIGINT NOT NULL AUTO_INCREMENT,
  id VARBINARY(1020) NOT NULL,
  workflow VARBINARY(1020) NOT NULL,
  version VARBINARY(1020) NOT NULL,
  status VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  input LONGTEXT NOT NULL,
  output LONGTEXT NULL,
  error LONGTEXT NULL,
  park_reason LONGTEXT NULL,
  waiting_on TEXT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  finished_at BIGINT NULL,
  available_at BIGINT NULL,
  lease_owner VARBINARY(1020) NULL,
  lease_epoch BIGINT NOT NULL,
  turns BIGINT NOT NULL,
  PRIMARY KEY (\`key\`),
  UNIQUE KEY cairn_runs_id (id),
  KEY cairn_runs_claimable (available_at, workflow, version),
  KEY cairn_runs_created (created_at DESC, id DESC),
  KEY cairn_runs_workflow_created (workflow, created_at DESC, id DESC),
  KEY cairn_runs_status_created (status, created_at DESC, id DESC),
  CONSTRAINT cairn_runs_claimable_status CHECK (available_at IS NULL OR status IN ('pending', 'running', 'waiting')),
  CONSTRAINT cairn_runs_running_leased CHECK (status <> 'running' OR available_at IS NOT NULL)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    `CREATE TABLE IF NOT EXISTS ${t.checkpoints} (
  run_key BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  name TEXT NOT NULL,
  kind VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  status VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  attempts BIGINT NOT NULL,
  delivery_order BIGINT NULL,
  output LONGTEXT NULL,
  error LONGTEXT NULL,
  wake_at BIGINT NULL,
  started_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (run_key, seq)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
}
