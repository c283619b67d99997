import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Retention: the SQLite migration 20 in Postgres. Partial indexes (`finished_at IS NOT NULL`,
 * which every retention statement states, so a generic plan of a prepared statement uses them
 * too). A plain CREATE INDEX (migrations run in a transaction, where CONCURRENTLY cannot): on a
 * large table it holds writes off while it builds — docs/postgres.md says how to build them
 * beforehand, concurrently, under these names (IF NOT EXISTS then skips them).
 */
export const retention: Migration = {
  revision: 20,
  name: 'retention',
  statements: (t: Tables) => [
    `CREATE INDEX IF NOT EXISTS cairn_runs_finished ON ${t.runs} (status, finished_at, id)
      WHERE finished_at IS NOT NULL`,
    `CREATE INDEX IF NOT EXISTS cairn_runs_workflow_finished ON ${t.runs} (workflow, status, finished_at, id)
      WHERE finished_at IS NOT NULL`,
  ],
}
