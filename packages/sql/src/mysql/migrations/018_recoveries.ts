import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent } from './unless_present.ts'

/**
 * Lease takeovers since a run last moved on: the Postgres migration 18 in MySQL/MariaDB types
 * (an instant ADD COLUMN on MariaDB 10.3+ and MySQL 8.0.12+). No index. Idempotent.
 */
export const recoveries: Migration = {
  revision: 18,
  name: 'recoveries',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'recoveries INTEGER NOT NULL DEFAULT 0'),
  ],
}
