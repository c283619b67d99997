import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Event accumulators (StateStore.appendEvent's `batches`, claimEventBatches,
 * deleteEventBatch):
 * - `cairn_event_batches`: one row per accumulator, keyed (workflow, batch_key, id): its mode,
 *   payload count (`size`), first add and due time, and the claim's lease (both NULL until its
 *   first claim). `is_open` is 1 on the one accumulator of its workflow and key that adds
 *   join, NULL on every other: the unique key counts no NULLs, so at most one is open however
 *   appends race. DEFERRABLE (checked at the end of each statement, still before commit): an
 *   append that opens a new accumulator beside a full one closes the old and inserts the new
 *   in ONE statement (shared/write_group.ts), whose parts run in no set order.
 *   `(due_at, id, workflow)` is the claim order, the workflow in it so a claim passes over
 *   other engines' workflows in the index; the partial `(lease_until)` finds the leased ones
 *   for a claim's `nextAt` without reading the others.
 * - `cairn_event_batch_items`: the payloads, one row each, numbered 1..size in append order,
 *   so an add is one insert (a debounce rewrites its item 1) instead of a rewrite of a
 *   growing list; they go with their accumulator.
 * Names, keys and ids are `COLLATE "C"` like queue names and run ids: compared and sorted by
 * code point. Payloads are TEXT like the event log's. New tables only: nothing is rewritten.
 */
export const eventBatches: Migration = {
  revision: 17,
  name: 'event_batches',
  statements: (t: Tables) => [
    `CREATE TABLE ${t.eventBatches} (
  workflow TEXT COLLATE "C" NOT NULL,
  batch_key TEXT COLLATE "C" NOT NULL,
  id TEXT COLLATE "C" NOT NULL,
  mode TEXT NOT NULL,
  first_at BIGINT NOT NULL,
  due_at BIGINT NOT NULL,
  size INTEGER NOT NULL,
  is_open SMALLINT,
  lease_owner TEXT,
  lease_until BIGINT,
  PRIMARY KEY (workflow, batch_key, id),
  CONSTRAINT cairn_event_batches_open UNIQUE (workflow, batch_key, is_open)
    DEFERRABLE INITIALLY IMMEDIATE,
  CONSTRAINT cairn_event_batches_open_flag CHECK (is_open = 1),
  CONSTRAINT cairn_event_batches_mode CHECK (mode IN ('debounce', 'batch'))
)`,
    `CREATE INDEX cairn_event_batches_due ON ${t.eventBatches} (due_at, id, workflow)`,
    `CREATE INDEX cairn_event_batches_leased ON ${t.eventBatches} (lease_until)
      WHERE lease_until IS NOT NULL`,
    `CREATE TABLE ${t.eventBatchItems} (
  workflow TEXT COLLATE "C" NOT NULL,
  batch_key TEXT COLLATE "C" NOT NULL,
  batch_id TEXT COLLATE "C" NOT NULL,
  item_no INTEGER NOT NULL,
  event_id TEXT COLLATE "C" NOT NULL,
  payload TEXT NOT NULL,
  PRIMARY KEY (workflow, batch_key, batch_id, item_no)
)`,
  ],
}
