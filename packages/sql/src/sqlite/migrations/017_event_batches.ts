import type { Migration } from './migration.ts'

/**
 * Event accumulators (StateStore.appendEvent's `batches`, claimEventBatches,
 * deleteEventBatch). `cairn_event_batches` holds one row per accumulator, keyed (workflow,
 * batch_key, id): its mode, payload count, first add and due time, and the claim's lease
 * (both NULL until its first claim). `is_open` is 1 on the one accumulator of its workflow and
 * key that adds join, NULL on the others (a unique index counts no NULLs). `(due_at, id,
 * workflow)` is the claim order, the workflow in it so a claim passes over other engines'
 * workflows in the index; the partial `(lease_until)` finds the leased ones for a claim's
 * `nextAt`. `cairn_event_batch_items` holds the payloads, one row each numbered 1..size in
 * append order, so an add is one insert (a debounce rewrites its item 1), not a rewrite of a
 * growing list; a rowid table, as payloads may be large. New tables only: nothing is
 * rewritten.
 */
export const eventBatches: Migration = {
  revision: 17,
  name: 'event_batches',
  sql: `
CREATE TABLE cairn_event_batches (
  workflow TEXT NOT NULL,
  batch_key TEXT NOT NULL,
  id TEXT NOT NULL,
  mode TEXT NOT NULL CHECK (mode IN ('debounce', 'batch')),
  first_at INTEGER NOT NULL,
  due_at INTEGER NOT NULL,
  size INTEGER NOT NULL,
  is_open INTEGER CHECK (is_open = 1),
  lease_owner TEXT,
  lease_until INTEGER,
  PRIMARY KEY (workflow, batch_key, id)
) STRICT, WITHOUT ROWID;
CREATE UNIQUE INDEX cairn_event_batches_open ON cairn_event_batches (workflow, batch_key, is_open);
CREATE INDEX cairn_event_batches_due ON cairn_event_batches (due_at, id, workflow);
CREATE INDEX cairn_event_batches_leased ON cairn_event_batches (lease_until)
  WHERE lease_until IS NOT NULL;
CREATE TABLE cairn_event_batch_items (
  workflow TEXT NOT NULL,
  batch_key TEXT NOT NULL,
  batch_id TEXT NOT NULL,
  item_no INTEGER NOT NULL,
  event_id TEXT NOT NULL,
  payload TEXT NOT NULL,
  PRIMARY KEY (workflow, batch_key, batch_id, item_no)
) STRICT;
`,
}
