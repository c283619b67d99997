import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent, addIndexUnlessPresent } from './unless_present.ts'

/**
 * Run priority: the Postgres migration 13 in MySQL/MariaDB types (an instant ADD COLUMN on
 * MariaDB 10.3+ and MySQL 8.0.12+). No partial indexes here: ended runs sit in the index
 * under a NULL `available_at`, before every due entry of their level, and a claim's range
 * (`available_at <= now`) starts past them. Idempotent, statement by statement.
 */
export const priority: Migration = {
  revision: 13,
  name: 'priority',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'priority SMALLINT NOT NULL DEFAULT 0'),
    ...addIndexUnlessPresent(
      t,
      'cairn_runs',
      t.runs,
      'cairn_runs_priority',
      'priority, available_at, workflow, version',
    ),
  ],
}
