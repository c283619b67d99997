import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Child runs: the parent link and the index listing a run's children.
 *
 * - `parent_run_id` (`TEXT COLLATE "C"`, like run ids: the cursor orders and compares ids by
 *   code point) and `parent_seq`, NULL for a top-level run. The parent's id rather than its
 *   key: every read of a run returns `parentRunId`, and listRuns filters by the id it is
 *   given, so neither needs a join. No foreign key: the link is kept as given. Nullable
 *   columns without a default: adding them rewrites nothing.
 * - `cairn_runs_parent_created (parent_run_id, created_at DESC, id DESC) WHERE parent_run_id
 *   IS NOT NULL`: `listRuns({ parentRunId })` is one range of it, newest first, keyset-paged
 *   by the cursor like the other listing indexes. Partial: top-level runs, the bulk, are not
 *   in it, so creating one costs no entry; `parent_run_id = $1` implies the predicate (`=` is
 *   strict), so the planner uses it with a generic plan too.
 */
export const children: Migration = {
  revision: 3,
  name: 'children',
  statements: (t: Tables) => [
    `ALTER TABLE ${t.runs} ADD COLUMN parent_run_id TEXT COLLATE "C", ADD COLUMN parent_seq BIGINT`,
    `CREATE INDEX cairn_runs_parent_created ON ${t.runs} (parent_run_id, created_at DESC, id DESC)
  WHERE parent_run_id IS NOT NULL`,
  ],
}
