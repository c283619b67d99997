import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent } from './unless_present.ts'

/**
 * Which worker ran a remote step's attempt: the Postgres migration 11 in MySQL/MariaDB types
 * (a nullable column at the end of the row: instant; idempotent).
 */
export const stepWorker: Migration = {
  revision: 11,
  name: 'step_worker',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_checkpoints', t.checkpoints, 'worker TEXT NULL'),
  ],
}
