import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent } from './unless_present.ts'

/**
 * The message names that wake a waiting run: the Postgres migration 9 in MySQL/MariaDB types
 * (` name name `; NULL: any message wakes), with the lease epoch that wrote them (names of
 * another epoch count as NULL). TEXT holds the engine's cap on the list; nullable at the end
 * of the row, so each ALTER is instant, and idempotent.
 */
export const wakeOn: Migration = {
  revision: 9,
  name: 'wake_on',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'wake_on TEXT NULL'),
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'wake_epoch BIGINT NULL'),
  ],
}
