import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent, addIndexUnlessPresent } from './unless_present.ts'

/**
 * Child runs: the Postgres migration 3 (docs/postgres.md) in MySQL/MariaDB types.
 *
 * - `parent_run_id` VARBINARY(1020) like run ids (byte for byte, the cursor's order) and
 *   `parent_seq` BIGINT, NULL for a top-level run: nullable columns at the end of the row,
 *   instant ALTERs (no table copy), one per column so each is idempotent on its own.
 * - `cairn_runs_parent_created (parent_run_id, created_at DESC, id DESC)`: listRuns of a
 *   run's children is one range of it, newest first, keyset-paged like the other listing
 *   indexes. A full index (MySQL has no partial ones): top-level runs sit in it under NULL,
 *   one more secondary entry per created run. Added by its own ALTER (in place, no table
 *   copy; an ADD KEY in the same ALTER as the columns would make theirs a rebuild too).
 * - Idempotent, as every migration here: each DDL is chosen from information_schema.
 */
export const children: Migration = {
  revision: 3,
  name: 'children',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'parent_run_id VARBINARY(1020) NULL'),
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'parent_seq BIGINT NULL'),
    ...addIndexUnlessPresent(
      t,
      'cairn_runs',
      t.runs,
      'cairn_runs_parent_created',
      'parent_run_id, created_at DESC, id DESC',
    ),
  ],
}
