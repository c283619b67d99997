import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/** Which worker ran a remote step's attempt: the SQLite migration 11 in Postgres types. */
export const stepWorker: Migration = {
  revision: 11,
  name: 'step_worker',
  statements: (t: Tables) => [`ALTER TABLE ${t.checkpoints} ADD COLUMN worker TEXT`],
}
