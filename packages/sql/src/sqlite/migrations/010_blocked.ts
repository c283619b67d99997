import type { Migration } from './migration.ts'

/**
 * Blocked runs (SuspendRunOp.blocked). A blocked run is stored as `waiting` with
 * `blocked_epoch` = the lease epoch of the suspend that found it blocked, and read as
 * `blocked` while `status = 'waiting' AND blocked_epoch = lease_epoch`: every statement that
 * wakes, claims or fences a waiting run stays as it is, the CHECK on claimable statuses needs
 * no rebuild (SQLite cannot alter a CHECK in place), and a suspend by an engine of an earlier
 * version — which does not write the column — leaves the run `waiting`, never stale `blocked`.
 * Nullable without a default: no row is rewritten.
 */
export const blocked: Migration = {
  revision: 10,
  name: 'blocked',
  sql: `
ALTER TABLE cairn_runs ADD COLUMN blocked_epoch INTEGER;
`,
}
