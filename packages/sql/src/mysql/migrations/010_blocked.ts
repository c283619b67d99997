import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent } from './unless_present.ts'

/**
 * Blocked runs: the Postgres migration 10 in MySQL/MariaDB types (`waiting` with
 * `blocked_epoch` = the suspend's lease epoch reads `blocked`; adding or changing a CHECK
 * would copy the table, a nullable column at the end of the row is instant). Idempotent.
 */
export const blocked: Migration = {
  revision: 10,
  name: 'blocked',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'blocked_epoch BIGINT NULL'),
  ],
}
