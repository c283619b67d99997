import type { Migration } from './migration.ts'

/**
 * Singleton admission (CreateRunOp.admission). A run keeps the key it was admitted under
 * (`admission_scope`, `admission_key`; kept after it ends, for operators) and, while
 * `queued`, its place in the key's queue (`admission_seq`). Slots are counted from the runs
 * through the partial index; `cairn_admission_keys` holds each key's limit (the newest
 * writer's) and next queue number. Nullable columns without defaults: no row is rewritten.
 */
export const admission: Migration = {
  revision: 12,
  name: 'admission',
  sql: `
ALTER TABLE cairn_runs ADD COLUMN admission_scope TEXT;
ALTER TABLE cairn_runs ADD COLUMN admission_key TEXT;
ALTER TABLE cairn_runs ADD COLUMN admission_seq INTEGER;
CREATE INDEX cairn_runs_admission ON cairn_runs (admission_scope, admission_key, status, admission_seq)
  WHERE admission_scope IS NOT NULL;
CREATE TABLE cairn_admission_keys (
  scope TEXT NOT NULL,
  admission_key TEXT NOT NULL,
  lim INTEGER NOT NULL,
  next_seq INTEGER NOT NULL,
  PRIMARY KEY (scope, admission_key)
) WITHOUT ROWID;
`,
}
