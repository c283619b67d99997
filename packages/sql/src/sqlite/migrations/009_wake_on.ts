import type { Migration } from './migration.ts'

/**
 * The message names that wake a waiting run (SuspendRunOp.wakeOn), written by each suspend
 * as ` name name ` (names are printable text without spaces, so a space-delimited word is one
 * name) and matched by a delivery with instr(); NULL: any message wakes the run. `wake_epoch`
 * is the lease epoch of the suspend that wrote them: names from another epoch count as NULL,
 * so an engine of an earlier version, still running during a rolling upgrade and suspending
 * without writing them, never leaves its run behind names it does not wait for. Rows written
 * before this revision are NULL, the old behaviour. Nullable columns without a default
 * rewrite no row.
 */
export const wakeOn: Migration = {
  revision: 9,
  name: 'wake_on',
  sql: `
ALTER TABLE cairn_runs ADD COLUMN wake_on TEXT;
ALTER TABLE cairn_runs ADD COLUMN wake_epoch INTEGER;
`,
}
