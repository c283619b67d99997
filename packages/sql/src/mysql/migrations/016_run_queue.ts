import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent } from './unless_present.ts'

/**
 * A whole run's queue: the Postgres migration 16 in MySQL/MariaDB types (an instant ADD
 * COLUMN on MariaDB 10.3+ and MySQL 8.0.12+). VARBINARY(800) like every queue name
 * (migration 14): stored byte for byte, so a name reads back exactly as written. No index.
 * Idempotent.
 */
export const runQueue: Migration = {
  revision: 16,
  name: 'run_queue',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'queue VARBINARY(800) NULL'),
  ],
}
