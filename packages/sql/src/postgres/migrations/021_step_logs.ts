import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Step logs: the SQLite migration 21 in Postgres types. Keyed `(run_key, seq)` like
 * checkpoints, with no foreign key (as for checkpoints): a row is written only while its run
 * row is locked (by the batch's wave, or appendStepLogs' shared lock), and deleting runs
 * deletes their step logs with them. `logs` is TEXT (the record's JSON text, TOASTed when
 * large), never looked into by a query. New table only: nothing is rewritten.
 */
export const stepLogs: Migration = {
  revision: 21,
  name: 'step_logs',
  statements: (t: Tables) => [
    `CREATE TABLE ${t.stepLogs} (
  run_key BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  logs TEXT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (run_key, seq)
)`,
  ],
}
