import type { Migration } from './migration.ts'

/**
 * Which worker ran a remote step's attempt (CheckpointRecord.worker): JSON text, `{"id",
 * "startedAt","finishedAt"}` by the worker's clock, for the dashboard's step view. Nullable
 * without a default: no row is rewritten; rows from before read null.
 */
export const stepWorker: Migration = {
  revision: 11,
  name: 'step_worker',
  sql: `
ALTER TABLE cairn_checkpoints ADD COLUMN worker TEXT;
`,
}
