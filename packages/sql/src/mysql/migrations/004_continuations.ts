import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'
import { addColumnUnlessPresent } from './unless_present.ts'

/**
 * continueAsNew: the Postgres migration 4 (docs/postgres.md) in MySQL/MariaDB types —
 * `continued_from` and `continued_to` VARBINARY(1020) like run ids, NULL for a run outside a
 * chain. Nullable columns at the end of the row: instant ALTERs, one per column so each is
 * idempotent on its own. No index: the chain is followed one row at a time.
 */
export const continuations: Migration = {
  revision: 4,
  name: 'continuations',
  statements: (t: Tables) => [
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'continued_from VARBINARY(1020) NULL'),
    ...addColumnUnlessPresent(t, 'cairn_runs', t.runs, 'continued_to VARBINARY(1020) NULL'),
  ],
}
