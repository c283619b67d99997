import type { Migration } from './migration.ts'

/**
 * Child runs: the parent link (`parent_run_id`, `parent_seq`: NULL for a top-level run) and
 * the index listing a run's children.
 *
 * The link is the parent's text id, not its integer key: every read of a run returns
 * `parentRunId`, and listRuns filters by the id it is given, so neither needs a join. No
 * foreign key: the link is kept as given (the contract stores it, it does not check it).
 *
 * `cairn_runs_parent_created (parent_run_id, created_at DESC, id DESC)` serves
 * `listRuns({ parentRunId })` as the other listing indexes serve theirs: one range, newest
 * first, keyset-paged by the cursor. Partial (`WHERE parent_run_id IS NOT NULL`): top-level
 * runs, the bulk, are not in it, so creating one costs no index entry; SQLite uses it for
 * `parent_run_id = ?`, which implies the predicate.
 */
export const children: Migration = {
  revision: 3,
  name: 'children',
  sql: `
ALTER TABLE cairn_runs ADD COLUMN parent_run_id TEXT;
ALTER TABLE cairn_runs ADD COLUMN parent_seq INTEGER;

CREATE INDEX cairn_runs_parent_created ON cairn_runs (parent_run_id, created_at DESC, id DESC)
  WHERE parent_run_id IS NOT NULL;
`,
}
