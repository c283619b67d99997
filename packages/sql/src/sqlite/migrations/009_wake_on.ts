import type { Migration } from './migration.ts'

/**
 * The message names that wake a waiting run (SuspendRunOp.wakeOn), written by each suspend
 * as ` name name ` (names are printable text without spaces, so a space-delimited word is one
 * name) and matched by a delivery with instr(); NULL: any message wakes the run. Rows written
 * before this revision are NULL, the old behaviour. A nullable column without a default
 * rewrites no row.
 */
export const wakeOn: Migration = {
  revision: 9,
  name: 'wake_on',
  sql: `
ALTER TABLE cairn_runs ADD COLUMN wake_on TEXT;
`,
}
