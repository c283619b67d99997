import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addIndexUnlessPresent } from './unless_present.ts'

/**
 * Retention: the Postgres migration 20 in MySQL/MariaDB. No partial index there: open runs sit
 * in these indexes under a NULL `finished_at` (statements bound `finished_at` from below, so
 * they never read them). 1,044 and 2,064 bytes, under InnoDB's 3,072. An online ALTER (InnoDB
 * builds a secondary index without blocking writes). Idempotent.
 */
export const retention: Migration = {
  revision: 20,
  name: 'retention',
  statements: (t: Tables) => [
    ...addIndexUnlessPresent(
      t,
      'cairn_runs',
      t.runs,
      'cairn_runs_finished',
      'status, finished_at, id',
    ),
    ...addIndexUnlessPresent(
      t,
      'cairn_runs',
      t.runs,
      'cairn_runs_workflow_finished',
      'workflow, status, finished_at, id',
    ),
  ],
}
