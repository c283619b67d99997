/**
 * Step logs' statements on SQLite (step_logs.ts). Every write runs inside one BEGIN
 * IMMEDIATE, so the writer is alone: a merge reads a position's record, then writes it, with
 * no lock of its own.
 */
export const STEP_LOG_SQL = {
  // seq, run id: the run's key (no row: no such run) and the position's record (NULL: none).
  selectStepLog: `SELECT r.key, l.logs FROM cairn_runs r
    LEFT JOIN cairn_step_logs l ON l.run_key = r.key AND l.seq = ? WHERE r.id = ?`,
  // run key, seq, logs, now.
  upsertStepLog: `INSERT INTO cairn_step_logs (run_key, seq, logs, updated_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (run_key, seq) DO UPDATE SET logs = excluded.logs, updated_at = excluded.updated_at`,
  // run id, fromSeq, updatedFrom, limit: one range of the (run_key, seq) primary key.
  loadStepLogs: `SELECT l.seq, l.logs, l.updated_at FROM cairn_runs r
    JOIN cairn_step_logs l ON l.run_key = r.key
    WHERE r.id = ? AND l.seq >= ? AND l.updated_at >= ? ORDER BY l.seq LIMIT ?`,
} as const
