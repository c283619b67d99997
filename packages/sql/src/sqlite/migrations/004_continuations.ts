import type { Migration } from './migration.ts'

/**
 * continueAsNew: the run-id chain. `continued_to` on a run that ended `continued` names its
 * successor; `continued_from` on the successor names the run it continues. Both NULL for any
 * other run. No index: the chain is followed one row at a time from a run in hand (waitForRun,
 * cancel), never searched.
 */
export const continuations: Migration = {
  revision: 4,
  name: 'continuations',
  sql: `
ALTER TABLE cairn_runs ADD COLUMN continued_from TEXT;
ALTER TABLE cairn_runs ADD COLUMN continued_to TEXT;
`,
}
