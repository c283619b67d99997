import type { Migration } from './migration.ts'

/**
 * Run tags and origin (engine.start's `tags`; engine.retryWithInput and engine.fork).
 *
 * - `tags`: the run's tags as a JSON array in the order given, NULL when none (read back with
 *   the row; never changes).
 * - `cairn_run_tags`: one row per (tag, run) for `listRuns({ tag })`, keyed by (tag,
 *   run_created_at, run_id): a tag's runs newest first are one range of the key, walked backwards
 *   from the cursor, so a page costs the same at any depth and for any tag, rare or common
 *   (see HOW_IT_WORKS.md, "Tags"). WITHOUT ROWID: the key is the table.
 * - `origin_kind`, `origin_run_id`, `origin_from_seq`: RunOrigin, NULL for most runs; the
 *   partial index `cairn_runs_origin_created` serves `listRuns({ originRunId })` like the
 *   parent index serves children.
 */
export const lineage: Migration = {
  revision: 7,
  name: 'lineage',
  sql: `
ALTER TABLE cairn_runs ADD COLUMN tags TEXT;
ALTER TABLE cairn_runs ADD COLUMN origin_kind TEXT;
ALTER TABLE cairn_runs ADD COLUMN origin_run_id TEXT;
ALTER TABLE cairn_runs ADD COLUMN origin_from_seq INTEGER;

CREATE TABLE cairn_run_tags (
  tag TEXT NOT NULL,
  run_created_at INTEGER NOT NULL,
  run_id TEXT NOT NULL,
  run_key INTEGER NOT NULL REFERENCES cairn_runs (key) ON DELETE CASCADE,
  PRIMARY KEY (tag, run_created_at, run_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX cairn_run_tags_run ON cairn_run_tags (run_key);

CREATE INDEX cairn_runs_origin_created ON cairn_runs (origin_run_id, created_at DESC, id DESC)
  WHERE origin_run_id IS NOT NULL;
`,
}
