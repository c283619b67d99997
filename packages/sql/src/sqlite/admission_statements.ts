/**
 * Singleton admission's statements on SQLite (ops/admission.ts). Every batch runs inside one
 * BEGIN IMMEDIATE, so the writer is alone: the key row needs no lock of its own, but it keeps
 * the key's limit (the newest writer's) and its next queue number.
 */

/** Statuses holding a slot, as stored (a blocked run is stored `waiting`). */
const ADMITTED = "('pending', 'running', 'waiting', 'parked')"

/** `scope, key` of a key's runs, through the admission index. */
const OF_KEY = 'admission_scope = ? AND admission_key = ?'

export const ADMISSION_SQL = {
  // scope, key, limit: insert the key or give it this writer's limit (no write when unchanged).
  upsertAdmissionKey: `INSERT INTO cairn_admission_keys (scope, admission_key, lim, next_seq)
    VALUES (?, ?, ?, 0) ON CONFLICT (scope, admission_key) DO UPDATE SET lim = excluded.lim
    WHERE lim <> excluded.lim`,
  // scope, key, the new run's id (not counted): admitted, then queued.
  countAdmission: `SELECT coalesce(sum(status <> 'queued'), 0) AS admitted,
    coalesce(sum(status = 'queued'), 0) AS queued
    FROM cairn_runs WHERE ${OF_KEY} AND status IN ('queued', 'pending', 'running', 'waiting', 'parked')
    AND id <> ?`,
  // inheritFrom, scope, key, successor: that run holds the key and is not terminal, or has
  // ended `continued` to the successor (as in the shared stores, where the finish may land first).
  holdsAdmission: `SELECT 1 FROM cairn_runs WHERE id = ? AND ${OF_KEY}
    AND (status IN ('queued', 'pending', 'running', 'waiting', 'parked')
      OR (status = 'continued' AND continued_to = ?))`,
  // waitingOn, scope, key, run id: the new run waits at the back of its key's queue.
  queueRun: `UPDATE cairn_runs SET status = 'queued', available_at = NULL, waiting_on = ?,
    admission_seq = (SELECT next_seq FROM cairn_admission_keys WHERE scope = ? AND admission_key = ?)
    WHERE id = ?`,
  // run id: a create made with a claim that was queued takes no lease after all.
  unclaimNewRun: `UPDATE cairn_runs SET lease_owner = NULL, lease_epoch = 0, turns = 0 WHERE id = ?`,
  // scope, key.
  bumpAdmissionSeq: `UPDATE cairn_admission_keys SET next_seq = next_seq + 1
    WHERE scope = ? AND admission_key = ?`,
  // A create refused by admission leaves nothing (tags and seed are written after it).
  deleteNewRun: `DELETE FROM cairn_runs WHERE id = ?`,
  // now, now, scope, key, scope, key, scope, key, a run id not counted (a create's own run,
  // inserted `pending` before its admission is decided; '' for none): the oldest queued runs
  // into the free slots.
  promoteAdmission: `UPDATE cairn_runs SET status = 'pending', available_at = ?, waiting_on = NULL,
    admission_seq = NULL, updated_at = ?
    WHERE key IN (SELECT key FROM cairn_runs WHERE ${OF_KEY} AND status = 'queued'
      ORDER BY admission_seq LIMIT max(0,
        coalesce((SELECT lim FROM cairn_admission_keys WHERE scope = ? AND admission_key = ?), 0)
        - (SELECT count(*) FROM cairn_runs WHERE ${OF_KEY} AND status IN ${ADMITTED} AND id <> ?)))`,
  // scope, key: whether any run of the key waits in its queue (a promotion has work).
  anyQueued: `SELECT 1 FROM cairn_runs WHERE ${OF_KEY} AND status = 'queued' LIMIT 1`,
  // run id: the key a run was admitted under and the key's limit (a requeue re-enters it).
  selectAdmission: `SELECT r.admission_scope, r.admission_key, k.lim FROM cairn_runs r
    JOIN cairn_admission_keys k ON k.scope = r.admission_scope AND k.admission_key = r.admission_key
    WHERE r.id = ?`,
} as const
