import type { Migration } from './migration.ts'

/**
 * Slot leases (StateStore.leaseQueueSlots): one row per (queue, owner) holding `slots` of the
 * queue until `expires_at`. Every grant pass subtracts the queue's unexpired leases from its
 * free slots (a range of the primary key: nothing to read for a queue without leases); a lease
 * call deletes the queue's expired ones. No foreign key: a queue row is never deleted. New
 * table only.
 */
export const queueLeases: Migration = {
  revision: 22,
  name: 'queue_leases',
  sql: `
CREATE TABLE cairn_queue_leases (
  queue TEXT NOT NULL,
  owner TEXT NOT NULL,
  slots INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (queue, owner)
) STRICT, WITHOUT ROWID;
`,
}
