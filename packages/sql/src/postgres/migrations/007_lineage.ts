import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Run tags and origin: the SQLite migration 7 in Postgres types.
 *
 * - `tags` TEXT: the run's tags as a JSON array, NULL when none; `origin_kind`,
 *   `origin_run_id` (`COLLATE "C"` like run ids), `origin_from_seq`: RunOrigin, NULL for most
 *   runs. Nullable without default: adding them rewrites nothing.
 * - `cairn_run_tags` (tag, run_created_at, run_id) → run_key: `listRuns({ tag })` walks one range
 *   of its primary key backwards from the cursor (an index-only scan that yields the run keys
 *   in list order, then one primary-key probe per row of the page), whatever the tag's
 *   frequency. No foreign key, as for checkpoints: rows are written with their run.
 * - `cairn_runs_origin_created`: partial, like the parent index, for `listRuns({ originRunId })`.
 */
export const lineage: Migration = {
  revision: 7,
  name: 'lineage',
  statements: (t: Tables) => [
    `ALTER TABLE ${t.runs} ADD COLUMN tags TEXT, ADD COLUMN origin_kind TEXT,
  ADD COLUMN origin_run_id TEXT COLLATE "C", ADD COLUMN origin_from_seq BIGINT`,
    `CREATE TABLE ${t.runTags} (
  tag TEXT COLLATE "C" NOT NULL,
  run_created_at BIGINT NOT NULL,
  run_id TEXT COLLATE "C" NOT NULL,
  run_key BIGINT NOT NULL,
  PRIMARY KEY (tag, run_created_at, run_id) INCLUDE (run_key)
)`,
    `CREATE INDEX cairn_runs_origin_created ON ${t.runs} (origin_run_id, created_at DESC, id DESC)
  WHERE origin_run_id IS NOT NULL`,
  ],
}
