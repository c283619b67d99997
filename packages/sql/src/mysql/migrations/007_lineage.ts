import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent, addIndexUnlessPresent } from './unless_present.ts'

/**
 * Run tags and origin: the Postgres migration 7 in MySQL/MariaDB types.
 *
 * - `tags` TEXT (JSON array, NULL when none), `origin_kind`, `origin_run_id` VARBINARY(1020)
 *   like run ids, `origin_from_seq`: nullable columns at the end of the row (instant ALTERs),
 *   one per statement so each is idempotent on its own.
 * - `cairn_run_tags`: clustered on (tag, run_created_at, run_id), so a tag's runs newest first are
 *   one range read backwards from the cursor. A tag is at most 64 code points (256 bytes of
 *   UTF-8): the key (256 + 8 + 1020 bytes) stays under InnoDB's 3072-byte limit.
 * - `cairn_runs_origin_created` for `listRuns({ originRunId })`, like the parent index.
 */
export const lineage: Migration = {
  revision: 7,
  name: 'lineage',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'tags TEXT NULL'),
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'origin_kind VARCHAR(8) NULL'),
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'origin_run_id VARBINARY(1020) NULL'),
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'origin_from_seq BIGINT NULL'),
    `CREATE TABLE IF NOT EXISTS ${t.runTags} (
  tag VARBINARY(256) NOT NULL,
  run_created_at BIGINT NOT NULL,
  run_id VARBINARY(1020) NOT NULL,
  run_key BIGINT NOT NULL,
  PRIMARY KEY (tag, run_created_at, run_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    ...addIndexUnlessPresent(
      t,
      'cairn_runs',
      t.runs,
      'cairn_runs_origin_created',
      'origin_run_id, created_at DESC, id DESC',
    ),
  ],
}
