/**
 * Event accumulators' statements on SQLite (ops/event_batches.ts). Every write runs inside one
 * BEGIN IMMEDIATE, so the writer is alone: an append reads a slot's open accumulator, then
 * writes, with no lock of its own; the unique index on (workflow, batch_key, is_open) still
 * holds every writer to one open accumulator per slot.
 */

/** An accumulator's primary key, bound as workflow, key, id. */
const ACCUMULATOR = 'workflow = ? AND batch_key = ? AND id = ?'

/** The same for its items. */
const ITEMS_OF = 'workflow = ? AND batch_key = ? AND batch_id = ?'

/** A claimer's workflows, bound as one JSON array: one statement text for any count. */
const WORKFLOWS = '(SELECT value FROM json_each(?))'

export const EVENT_BATCH_SQL = {
  // workflow, key: the accumulator adds join (StoredAccumulator's columns).
  selectOpenBatch: `SELECT workflow, batch_key, id, mode, size, first_at, due_at
    FROM cairn_event_batches WHERE workflow = ? AND batch_key = ? AND is_open = 1`,
  // workflow, key, id: whether the id is in use.
  selectBatchId: `SELECT 1 FROM cairn_event_batches WHERE ${ACCUMULATOR}`,
  // mode, size, due time, is_open (1 or NULL), workflow, key, id.
  updateBatch: `UPDATE cairn_event_batches SET mode = ?, size = ?, due_at = ?, is_open = ?
    WHERE ${ACCUMULATOR}`,
  // workflow, key, id, mode, first add, due time, size: the slot's open accumulator.
  insertBatch: `INSERT INTO cairn_event_batches
    (workflow, batch_key, id, mode, first_at, due_at, size, is_open) VALUES (?, ?, ?, ?, ?, ?, ?, 1)`,
  // workflow, key, id: a joined debounce keeps item 1 only.
  trimBatchItems: `DELETE FROM cairn_event_batch_items WHERE ${ITEMS_OF} AND item_no > 1`,
  // workflow, key, id, item number, event id, payload: a debounce's item 1 is replaced.
  putBatchItem: `INSERT INTO cairn_event_batch_items
    (workflow, batch_key, batch_id, item_no, event_id, payload) VALUES (?, ?, ?, ?, ?, ?)
    ON CONFLICT (workflow, batch_key, batch_id, item_no)
    DO UPDATE SET event_id = excluded.event_id, payload = excluded.payload`,
  // now, now, workflows (a JSON array), limit: the due accumulators of those workflows not
  // under a live lease, in claim order.
  dueBatches: `SELECT workflow, batch_key, id, mode, first_at, due_at
    FROM cairn_event_batches INDEXED BY cairn_event_batches_due
    WHERE due_at <= ? AND (lease_until IS NULL OR lease_until <= ?) AND workflow IN ${WORKFLOWS}
    ORDER BY due_at, id LIMIT ?`,
  // owner, lease end, workflow, key, id: leased, and closed to adds.
  leaseBatch: `UPDATE cairn_event_batches SET lease_owner = ?, lease_until = ?, is_open = NULL
    WHERE ${ACCUMULATOR}`,
  // workflow, key, id: the payloads in append order.
  batchItems: `SELECT event_id, payload FROM cairn_event_batch_items WHERE ${ITEMS_OF}
    ORDER BY item_no`,
  // workflows, workflows (JSON arrays): of those workflows' accumulators, the earliest unleased
  // due time (the due index's head, past the few leased ones: forced, as the planner would
  // read every accumulator of the workflows by primary key and sort them) and the earliest of
  // due time and lease end of the leased ones (their partial index).
  nextBatchAt: `SELECT
    (SELECT due_at FROM cairn_event_batches INDEXED BY cairn_event_batches_due
      WHERE lease_until IS NULL AND workflow IN ${WORKFLOWS}
      ORDER BY due_at LIMIT 1),
    (SELECT min(max(due_at, lease_until)) FROM cairn_event_batches
      WHERE lease_until IS NOT NULL AND workflow IN ${WORKFLOWS})`,
  // workflow, key, id.
  deleteBatch: `DELETE FROM cairn_event_batches WHERE ${ACCUMULATOR}`,
  deleteBatchItems: `DELETE FROM cairn_event_batch_items WHERE ${ITEMS_OF}`,
} as const
