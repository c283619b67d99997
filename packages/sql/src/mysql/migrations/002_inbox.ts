import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent } from './unless_present.ts'

/**
 * Run inboxes (signals): the Postgres migration 2 (docs/postgres.md) in MySQL/MariaDB types.
 *
 * - `inbox_seq` on the run row counts the messages accepted; a suspend compares it with what
 *   its turn has seen in the UPDATE that suspends. Added at the end of the row with a
 *   constant default: an instant ALTER on MariaDB 10.3+ and MySQL 8.0.12+ (no table copy).
 * - `cairn_messages` keyed `(run_key, seq)` like checkpoints: a run's inbox is one range of the
 *   clustered index, in acceptance order. Consumed messages stay (`consumed_at` set), so their
 *   dedupe ids are still remembered.
 * - Unique `(run_key, dedupe_id)`: one lookup finds a resent id, and two concurrent deliveries
 *   of one id cannot both be stored. InnoDB lets NULLs repeat in a unique index: messages
 *   without an id never collide.
 * - Names and dedupe ids are VARBINARY like run ids (byte for byte, no trailing-space
 *   padding: `'a'` and `'a '` are two ids); the payload is LONGTEXT like the other payloads.
 * - Idempotent, as every migration here (DDL commits statement by statement): MySQL 8 has no
 *   `ADD COLUMN IF NOT EXISTS` (MariaDB has), so the column is added by a prepared statement
 *   chosen from information_schema (unless_present.ts).
 */
export const inbox: Migration = {
  revision: 2,
  name: 'inbox',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'inbox_seq BIGINT NOT NULL DEFAULT 0'),
    `CREATE TABLE IF NOT EXISTS ${t.messages} (
  run_key BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  kind VARCHAR(16) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  name VARBINARY(1020) NOT NULL,
  dedupe_id VARBINARY(1020) NULL,
  payload LONGTEXT NOT NULL,
  accepted_at BIGINT NOT NULL,
  consumed_at BIGINT NULL,
  PRIMARY KEY (run_key, seq),
  UNIQUE KEY cairn_messages_dedupe (run_key, dedupe_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
}
