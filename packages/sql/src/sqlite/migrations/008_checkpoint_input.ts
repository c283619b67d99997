import type { Migration } from './migration.ts'

/**
 * A registered step's encoded input with its checkpoint (CheckpointRecord.input): the text
 * the codec wrote for `ctx.step(name, input)`, shown on the timeline and what a remote worker
 * will need. NULL for every other kind and for rows written before this revision; adding a
 * nullable column without a default rewrites no row.
 */
export const checkpointInput: Migration = {
  revision: 8,
  name: 'checkpoint_input',
  sql: `
ALTER TABLE cairn_checkpoints ADD COLUMN input TEXT;
`,
}
