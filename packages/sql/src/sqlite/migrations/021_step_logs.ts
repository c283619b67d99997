import type { Migration } from './migration.ts'

/**
 * Step logs (contracts/step_logs.ts; StateStore.appendStepLogs, loadStepLogs): one row per
 * position a step logged at, keyed like checkpoints by the run's integer key and removed with
 * the run. `logs` is the record as JSON text (store-kit's StepLogDocument: entries, dropped
 * count, progress, per-execution marks), read and rewritten whole by a merge: a position's
 * lines are capped (maxEntries), so the text stays bounded, and no query looks inside it.
 * A table of its own, not a checkpoint column: a step's live lines are written while it
 * runs, and the checkpoint rows every turn reads stay as small as they were. New table only.
 */
export const stepLogs: Migration = {
  revision: 21,
  name: 'step_logs',
  sql: `
CREATE TABLE cairn_step_logs (
  run_key INTEGER NOT NULL REFERENCES cairn_runs (key) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  logs TEXT NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (run_key, seq)
) STRICT;
`,
}
