import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Named queues (SaveCheckpointOp.enqueue, StateStore.grantQueueSlots):
 * - `cairn_queues`: a queue's concurrency (the newest writer's) and its counters (the next
 *   item's place in line, the grants made); its row is the lock every write to the queue takes.
 * - `cairn_queue_items`: one row per position (run, seq) waiting for or holding a slot, hanging
 *   off the run's integer key like its messages (no foreign key: items of ended runs are
 *   deleted by the queue's next pass). Slots in use are counted from these rows and the runs,
 *   never stored. Indexed by run (a cancel finds its items) and in grant order (a pass reads
 *   the waiters of one queue).
 * - `cairn_queue_keys`: the grant number of each fairness key's last grant.
 * Names and keys are `COLLATE "C"` like run ids: compared and sorted by code point.
 */
export const queues: Migration = {
  revision: 14,
  name: 'queues',
  statements: (t: Tables) => [
    `CREATE TABLE ${t.queues} (
  name TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  concurrency INTEGER NOT NULL,
  next_order BIGINT NOT NULL,
  grants BIGINT NOT NULL
)`,
    `CREATE TABLE ${t.queueItems} (
  queue TEXT COLLATE "C" NOT NULL,
  run_key BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  attempt BIGINT NOT NULL,
  priority SMALLINT NOT NULL,
  fairness_key TEXT COLLATE "C" NOT NULL,
  item_order BIGINT NOT NULL,
  enqueued_at BIGINT NOT NULL,
  granted SMALLINT NOT NULL,
  PRIMARY KEY (queue, run_key, seq)
)`,
    `CREATE INDEX cairn_queue_items_run ON ${t.queueItems} (run_key)`,
    `CREATE INDEX cairn_queue_items_line ON ${t.queueItems}
      (queue, granted, priority DESC, item_order)`,
    `CREATE TABLE ${t.queueKeys} (
  queue TEXT COLLATE "C" NOT NULL,
  fairness_key TEXT COLLATE "C" NOT NULL,
  last_grant BIGINT NOT NULL,
  PRIMARY KEY (queue, fairness_key)
)`,
  ],
}
