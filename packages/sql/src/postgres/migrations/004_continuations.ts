import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * continueAsNew: the run-id chain. `continued_to` on a run that ended `continued` names its
 * successor; `continued_from` on the successor names the run it continues (`COLLATE "C"` like
 * run ids). Both NULL for any other run; nullable without default, so adding them rewrites
 * nothing. No index: the chain is followed one row at a time from a run in hand.
 */
export const continuations: Migration = {
  revision: 4,
  name: 'continuations',
  statements: (t: Tables) => [
    `ALTER TABLE ${t.runs} ADD COLUMN continued_from TEXT COLLATE "C", ADD COLUMN continued_to TEXT COLLATE "C"`,
  ],
}
