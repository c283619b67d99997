import type { Migration } from './migration.ts'

/**
 * Named queues (SaveCheckpointOp.enqueue / release, grantQueueSlots). `cairn_queues` holds a
 * queue's concurrency (the newest writer's) and two counters: `enqueues` hands each item its
 * place in line, `grants` numbers the grants so each fairness key's last one can be compared
 * (`cairn_queue_keys`). Slots in use are never stored: they are the granted items whose run
 * is not terminal, counted from the items and the runs. Items are keyed by the runs' integer
 * key, as the inbox is, and go with their run; the second index serves a cancel (every item
 * of a run), the third the grant order within a queue.
 */
export const queues: Migration = {
  revision: 14,
  name: 'queues',
  sql: `
CREATE TABLE cairn_queues (
  name TEXT PRIMARY KEY,
  concurrency INTEGER NOT NULL,
  enqueues INTEGER NOT NULL,
  grants INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE TABLE cairn_queue_items (
  queue TEXT NOT NULL,
  run_key INTEGER NOT NULL REFERENCES cairn_runs (key) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  priority INTEGER NOT NULL,
  fairness_key TEXT NOT NULL,
  item_order INTEGER NOT NULL,
  enqueued_at INTEGER NOT NULL,
  granted INTEGER NOT NULL,
  PRIMARY KEY (queue, run_key, seq)
) STRICT, WITHOUT ROWID;
CREATE INDEX cairn_queue_items_run ON cairn_queue_items (run_key);
CREATE INDEX cairn_queue_items_line ON cairn_queue_items (queue, granted, priority DESC, item_order);
CREATE TABLE cairn_queue_keys (
  queue TEXT NOT NULL,
  fairness_key TEXT NOT NULL,
  last_grant INTEGER NOT NULL,
  PRIMARY KEY (queue, fairness_key)
) STRICT, WITHOUT ROWID;
`,
}
