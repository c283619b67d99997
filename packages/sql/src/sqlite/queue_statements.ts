/**
 * Named queues' statements on SQLite (ops/queue_items.ts, ops/queue_grants.ts,
 * ops/queue_rate.ts, ops/queue_leases.ts, queue_stats.ts).
 * Every write runs inside one BEGIN IMMEDIATE, so the writer is alone: a queue needs no lock
 * of its own, and a grant pass may read, then write.
 */
import { TERMINAL_STATUSES } from '../shared/op_columns.ts'

/** Run statuses whose items may be granted, as stored (a blocked run is stored `waiting`). */
const WAITERS = "('pending', 'running', 'waiting')"

/** The run key of a run id, for statements that are given the id. */
const RUN_KEY = '(SELECT key FROM cairn_runs WHERE id = ?)'

export const QUEUE_SQL = {
  // name, concurrency, rate limit, rate period (both null: no rate): the queue takes this
  // writer's concurrency and rate and hands out the next place in line (RETURNING it). A
  // replayed enqueue that keeps its item burns a number: harmless, places are only compared.
  upsertQueue: `INSERT INTO cairn_queues (name, concurrency, rate_limit, rate_period_ms, enqueues,
      grants) VALUES (?, ?, ?, ?, 1, 0)
    ON CONFLICT (name) DO UPDATE SET concurrency = excluded.concurrency,
      rate_limit = excluded.rate_limit, rate_period_ms = excluded.rate_period_ms,
      enqueues = enqueues + 1
    RETURNING enqueues`,
  // queue, seq, attempt, priority, fairness key, place, now, run id: an item already there for
  // the same attempt is kept as it is (a replayed save); one for another attempt is replaced.
  upsertQueueItem: `INSERT INTO cairn_queue_items (queue, run_key, seq, attempt, priority,
      fairness_key, item_order, enqueued_at, granted)
    SELECT ?, key, ?, ?, ?, ?, ?, ?, 0 FROM cairn_runs WHERE id = ?
    ON CONFLICT (queue, run_key, seq) DO UPDATE SET attempt = excluded.attempt,
      priority = excluded.priority, fairness_key = excluded.fairness_key,
      item_order = excluded.item_order, enqueued_at = excluded.enqueued_at, granted = 0
    WHERE attempt <> excluded.attempt`,
  // queue, run id, seq: whether the position's item holds a slot.
  selectItemGranted: `SELECT granted FROM cairn_queue_items
    WHERE queue = ? AND run_key = ${RUN_KEY} AND seq = ?`,
  // queue, run id, seq.
  deleteQueueItem: `DELETE FROM cairn_queue_items WHERE queue = ? AND run_key = ${RUN_KEY} AND seq = ?`,
  // run id, the queue names as one JSON array (one statement text for any count).
  deleteRunQueueItems: `DELETE FROM cairn_queue_items WHERE run_key = ${RUN_KEY}
    AND queue IN (SELECT value FROM json_each(?))`,
  // run key: every item of a cancelled run, with the queues it was in.
  deleteRunItems: `DELETE FROM cairn_queue_items WHERE run_key = ? RETURNING queue`,
  // now, run id, the grant message's name: the position's attempt is over.
  consumeGrants: `UPDATE cairn_messages SET consumed_at = ?
    WHERE run_key = ${RUN_KEY} AND name = ? AND consumed_at IS NULL`,
  // queue: the items of runs gone or ended (terminal: they hold no slot), which a pass drops.
  purgeQueue: `DELETE FROM cairn_queue_items WHERE queue = ? AND NOT EXISTS (SELECT 1 FROM cairn_runs r
    WHERE r.key = cairn_queue_items.run_key AND r.status NOT IN ${TERMINAL_STATUSES})`,
  // now, queue: its free slots (negative under a lowered concurrency), its grant counter and
  // its rate (null: none), no row for a queue never written. A parked run's granted item holds
  // nothing (its unpark drops it: it asks again); the slots of leases unexpired at now are in
  // use (a range of the leases' primary key: nothing read for a queue without any).
  selectQueueRoom: `SELECT q.concurrency - (SELECT count(*) FROM cairn_queue_items i
      JOIN cairn_runs r ON r.key = i.run_key
      WHERE i.queue = q.name AND i.granted = 1 AND r.status IN ${WAITERS})
      - (SELECT coalesce(sum(l.slots), 0) FROM cairn_queue_leases l
        WHERE l.queue = q.name AND l.expires_at > ?) AS free,
      q.grants, q.rate_limit, q.rate_period_ms
    FROM cairn_queues q WHERE q.name = ?`,
  // queue: the next waiter by the grant rule (store-kit nextWaiter): highest priority, then the
  // fairness key granted least recently (never: 0), then place in line.
  selectNextWaiter: `SELECT i.run_key, r.id AS run_id, r.status, i.seq, i.attempt, i.fairness_key
    FROM cairn_queue_items i JOIN cairn_runs r ON r.key = i.run_key
    LEFT JOIN cairn_queue_keys k ON k.queue = i.queue AND k.fairness_key = i.fairness_key
    WHERE i.queue = ? AND i.granted = 0 AND r.status IN ${WAITERS}
    ORDER BY i.priority DESC, coalesce(k.last_grant, 0), i.item_order LIMIT 1`,
  // queue, run key, seq.
  markGranted: `UPDATE cairn_queue_items SET granted = 1 WHERE queue = ? AND run_key = ? AND seq = ?`,
  // queue: the grant's number.
  countGrant: `UPDATE cairn_queues SET grants = grants + 1 WHERE name = ? RETURNING grants`,
  // queue, fairness key, the grant's number.
  recordKeyGrant: `INSERT INTO cairn_queue_keys (queue, fairness_key, last_grant) VALUES (?, ?, ?)
    ON CONFLICT (queue, fairness_key) DO UPDATE SET last_grant = excluded.last_grant`,
  // queue, first grant number, last: the logged times a pass's grants look back at (one
  // range of the primary key; store-kit rateLogRange).
  selectGrantLog: `SELECT grant_no, granted_at FROM cairn_queue_grant_log
    WHERE queue = ? AND grant_no BETWEEN ? AND ?`,
  // queue, the grant's number, now: a rated queue's grant.
  // The lowest-numbered grant still logged (a grant looked back at was pruned: queue_rate.ts).
  selectOldestGrant: `SELECT granted_at FROM cairn_queue_grant_log
    WHERE queue = ? ORDER BY grant_no LIMIT 1`,
  logGrant: `INSERT INTO cairn_queue_grant_log (queue, grant_no, granted_at) VALUES (?, ?, ?)`,
  // queue, below, before: the logged grants the rate no longer looks back at (store-kit
  // prunableGrants), found on one range of the primary key.
  pruneGrantLog: `DELETE FROM cairn_queue_grant_log
    WHERE queue = ? AND grant_no <= ? AND granted_at <= ?`,
  // now, now again, then the names as one JSON array: the queues that exist, in name order
  // (BINARY: code points), each with its slots in use, its waiters, the oldest waiter's
  // enqueue time, its rate, the grants it logged in the period before now (none read without
  // a rate) and the slots of its leases unexpired at now.
  queueStats: `SELECT q.name, q.concurrency, q.rate_limit, q.rate_period_ms,
      coalesce(sum(i.granted = 1 AND r.status IN ${WAITERS}), 0) AS granted,
      coalesce(sum(i.granted = 0 AND r.status IN ${WAITERS}), 0) AS waiting,
      min(CASE WHEN i.granted = 0 AND r.status IN ${WAITERS} THEN i.enqueued_at END) AS oldest,
      CASE WHEN q.rate_limit IS NULL THEN 0 ELSE (SELECT count(*) FROM cairn_queue_grant_log g
        WHERE g.queue = q.name AND g.granted_at > ? - q.rate_period_ms) END AS recent,
      (SELECT coalesce(sum(l.slots), 0) FROM cairn_queue_leases l
        WHERE l.queue = q.name AND l.expires_at > ?) AS leased
    FROM cairn_queues q LEFT JOIN cairn_queue_items i ON i.queue = q.name
    LEFT JOIN cairn_runs r ON r.key = i.run_key
    WHERE q.name IN (SELECT value FROM json_each(?)) GROUP BY q.name ORDER BY q.name`,
  // Slot leases (ops/queue_leases.ts).
  // name, concurrency: the queue as a lease finds it — made if never written (no rate, no
  // place handed out yet: the next enqueue's is 1), its concurrency the request's.
  leaseQueue: `INSERT INTO cairn_queues (name, concurrency, rate_limit, rate_period_ms, enqueues,
      grants) VALUES (?, ?, NULL, NULL, 0, 0)
    ON CONFLICT (name) DO UPDATE SET concurrency = excluded.concurrency`,
  // queue, now: the leases that hold nothing any more.
  deleteExpiredLeases: `DELETE FROM cairn_queue_leases WHERE queue = ? AND expires_at <= ?`,
  // owner, owner, queue (after deleteExpiredLeases: every lease left is unexpired): the slots
  // granted items hold (as selectQueueRoom counts them), the items waiting (as queueStats
  // counts them), the owner's leased slots and the other owners'.
  selectLeaseCounts: `SELECT
      (SELECT count(*) FROM cairn_queue_items i JOIN cairn_runs r ON r.key = i.run_key
        WHERE i.queue = q.name AND i.granted = 1 AND r.status IN ${WAITERS}) AS granted,
      (SELECT count(*) FROM cairn_queue_items i JOIN cairn_runs r ON r.key = i.run_key
        WHERE i.queue = q.name AND i.granted = 0 AND r.status IN ${WAITERS}) AS waiting,
      (SELECT coalesce(sum(l.slots), 0) FROM cairn_queue_leases l
        WHERE l.queue = q.name AND l.owner = ?) AS mine,
      (SELECT coalesce(sum(l.slots), 0) FROM cairn_queue_leases l
        WHERE l.queue = q.name AND l.owner <> ?) AS others
    FROM cairn_queues q WHERE q.name = ?`,
  // queue, owner, slots, expires at.
  upsertLease: `INSERT INTO cairn_queue_leases (queue, owner, slots, expires_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (queue, owner) DO UPDATE SET slots = excluded.slots,
      expires_at = excluded.expires_at`,
  // queue, owner.
  deleteLease: `DELETE FROM cairn_queue_leases WHERE queue = ? AND owner = ?`,
} as const
