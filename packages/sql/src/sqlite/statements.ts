/**
 * Every fixed statement, prepared once when the store opens. Writes are single conditional
 * statements: the fence (epoch and `running`) sits in the WHERE clause, so `changes` tells
 * applied from not applied without a read on the success path.
 */
import type { SqliteDatabase, SqliteStatement } from './database.ts'
import {
  CHECKPOINT_COLUMNS,
  CHECKPOINT_OVERWRITE,
  CHECKPOINT_PLACEHOLDERS,
  CHECKPOINT_SELECT,
  MESSAGE_SELECT,
  RUN_COLUMNS,
} from './row_mapping.ts'
import type { TransactionStatements } from './transaction.ts'
import { TERMINAL_STATUSES } from '../shared/op_columns.ts'
import { ADMISSION_SQL } from './admission_statements.ts'
import { QUEUE_SQL } from './queue_statements.ts'
import { EVENT_BATCH_SQL } from './event_batch_statements.ts'
import { SCHEDULE_ARRAY_ROWS, SCHEDULE_SQL } from './schedule_statements.ts'
import { STEP_LOG_SQL } from './step_log_statements.ts'

/** Appended to a run UPDATE: the write applies only under the current lease. */
const FENCED = `WHERE id = ? AND lease_epoch = ? AND status = 'running'`

/** Run statuses a checkpoint save applies under (at the fence epoch): see op_columns.ts. */
const CHECKPOINT_WRITABLE = "('running', 'cancelled')"

const SQL = {
  insertRun: `INSERT INTO cairn_runs (id, workflow, version, status, input, created_at, updated_at,
    available_at, lease_owner, lease_epoch, turns, parent_run_id, parent_seq, continued_from,
    tags, origin_kind, origin_run_id, origin_from_seq, admission_scope, admission_key, priority,
    queue) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
    ON CONFLICT (id) DO NOTHING`,
  // A new run's tag (the tag, then its run id): keyed by tag for listRuns({ tag }).
  insertRunTag: `INSERT INTO cairn_run_tags (tag, run_created_at, run_id, run_key)
    SELECT ?, created_at, id, key FROM cairn_runs WHERE id = ?`,
  // A new run's seed checkpoint (CHECKPOINT_COLUMNS, then the run id).
  insertSeedCheckpoint: `INSERT INTO cairn_checkpoints (run_key, ${CHECKPOINT_COLUMNS})
    SELECT key, ${CHECKPOINT_PLACEHOLDERS} FROM cairn_runs WHERE id = ?`,
  selectRun: `SELECT ${RUN_COLUMNS} FROM cairn_runs WHERE id = ?`,
  selectFence: `SELECT status, lease_epoch FROM cairn_runs WHERE id = ?`,
  // The row (CHECKPOINT_COLUMNS), then the run id and the fence epoch. The run row, read for
  // its key, is the fence: no row comes out of the SELECT unless the run is running at that
  // epoch. Only a retrying or waiting checkpoint is overwritten: a recorded outcome never
  // changes (I1). Plain `?`s, no `?NNN`: better-sqlite3 (knex/) binds only those positionally.
  saveCheckpoint: `INSERT INTO cairn_checkpoints (run_key, ${CHECKPOINT_COLUMNS})
    SELECT key, ${CHECKPOINT_PLACEHOLDERS} FROM cairn_runs
    WHERE id = ? AND lease_epoch = ? AND status IN ${CHECKPOINT_WRITABLE}
    ON CONFLICT (run_key, seq) DO UPDATE SET ${CHECKPOINT_OVERWRITE}
    WHERE cairn_checkpoints.status IN ('retrying', 'waiting')`,
  selectCheckpoint: `SELECT ${CHECKPOINT_SELECT} FROM cairn_runs r JOIN cairn_checkpoints c ON c.run_key = r.key
    WHERE r.id = ? AND c.seq = ?`,
  loadCheckpoints: `SELECT ${CHECKPOINT_SELECT} FROM cairn_runs r JOIN cairn_checkpoints c ON c.run_key = r.key
    WHERE r.id = ? ORDER BY c.seq`,
  // runId, fromSeq, limit: one range of the (run_key, seq) primary key.
  loadCheckpointPage: `SELECT ${CHECKPOINT_SELECT} FROM cairn_runs r JOIN cairn_checkpoints c ON c.run_key = r.key
    WHERE r.id = ? AND c.seq >= ? ORDER BY c.seq LIMIT ?`,
  // inboxSeen, now, wakeAt, waitingOn, wakeOn, blocked (1/0), now, … A message accepted after the turn read the inbox leaves the run
  // claimable now: decided in the write itself, on the row the message counter lives on.
  suspendRun: `UPDATE cairn_runs SET status = 'waiting',
    available_at = CASE WHEN inbox_seq > ? THEN ? ELSE ? END, waiting_on = ?, wake_on = ?,
    wake_epoch = lease_epoch, blocked_epoch = CASE WHEN ? THEN lease_epoch END, recoveries = 0,
    updated_at = ? ${FENCED} RETURNING available_at`,
  // A suspend and a release set recoveries to 0: the run moved on (RunRecord.recoveries).
  releaseRun: `UPDATE cairn_runs SET status = 'pending', available_at = ?, recoveries = 0, updated_at = ?
    ${FENCED}`,
  finishRun: `UPDATE cairn_runs SET status = ?, output = ?, error = ?, continued_to = ?,
    available_at = NULL, finished_at = ?, updated_at = ? ${FENCED}`,
  parkRun: `UPDATE cairn_runs SET status = 'parked', park_reason = ?, available_at = NULL, updated_at = ? ${FENCED}`,
  // progressed (1/0), expiry, now, …: a renewal reporting progress sets recoveries to 0.
  renewLease: `UPDATE cairn_runs SET recoveries = CASE WHEN ? THEN 0 ELSE recoveries END,
    available_at = ?, updated_at = ? ${FENCED}`,
  // The epoch moves so the lease holder's later writes are fenced.
  cancelRun: `UPDATE cairn_runs SET status = 'cancelled', error = ?, available_at = NULL, waiting_on = NULL,
    park_reason = NULL, lease_epoch = lease_epoch + 1, finished_at = ?, updated_at = ?
    WHERE id = ? AND status NOT IN ${TERMINAL_STATUSES}
    RETURNING key, lease_epoch, admission_scope, admission_key`,
  // A claim of a `running` run is a takeover (its lease lapsed, or reclaimOwned handed it
  // back): recoveries + 1, read from the status before this write (SET reads the old row).
  claimRun: `UPDATE cairn_runs SET recoveries = recoveries + (status = 'running'),
    status = 'running', lease_owner = ?, lease_epoch = lease_epoch + 1, turns = turns + 1,
    available_at = ?, waiting_on = NULL, updated_at = ? WHERE id = ? RETURNING ${RUN_COLUMNS}`,
  // The run a delivery goes to, and the seq its dedupe id was accepted under (NULL: new).
  selectDelivery: `SELECT r.key, r.status, r.lease_epoch, m.seq FROM cairn_runs r
    LEFT JOIN cairn_messages m ON m.run_key = r.key AND m.dedupe_id = ? WHERE r.id = ?`,
  // name, now ×3, run key: the next seq; a waiting run claimable now unless due sooner, when
  // its wake_on (written in its current lease epoch) names the message (wake_on.ts).
  countMessage: `UPDATE cairn_runs SET inbox_seq = inbox_seq + 1,
    available_at = CASE WHEN status = 'waiting'
        AND (wake_on IS NULL OR wake_epoch IS NOT lease_epoch
          OR instr(wake_on, ' ' || ? || ' ') > 0)
        AND (available_at IS NULL OR available_at > ?)
      THEN ? ELSE available_at END, updated_at = ?
    WHERE key = ? RETURNING inbox_seq`,
  insertMessage: `INSERT INTO cairn_messages (run_key, seq, kind, name, dedupe_id, payload, accepted_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)`,
  consumeMessage: `UPDATE cairn_messages SET consumed_at = ?
    WHERE run_key = (SELECT key FROM cairn_runs WHERE id = ?) AND seq = ? AND consumed_at IS NULL`,
  // type, text, number, run id: the attribute replaced whatever type it had.
  upsertAttribute: `INSERT INTO cairn_search_attributes (run_key, name, type, text_value, number_value)
    SELECT key, ?, ?, ?, ? FROM cairn_runs WHERE id = ?
    ON CONFLICT (run_key, name) DO UPDATE SET type = excluded.type,
      text_value = excluded.text_value, number_value = excluded.number_value`,
  deleteAttribute: `DELETE FROM cairn_search_attributes
    WHERE run_key = (SELECT key FROM cairn_runs WHERE id = ?) AND name = ?`,
  // The ids as one JSON array: one statement text for any count.
  loadAttributes: `SELECT r.id, a.name, a.type, a.text_value, a.number_value
    FROM cairn_runs r JOIN cairn_search_attributes a ON a.run_key = r.key
    WHERE r.id IN (SELECT value FROM json_each(?))`,
  loadInbox: `SELECT ${MESSAGE_SELECT} FROM cairn_runs r JOIN cairn_messages m ON m.run_key = r.key
    WHERE r.id = ? AND m.seq > ? AND m.consumed_at IS NULL ORDER BY m.seq`,
  // Broadcast events (sqlite/ops/event_ops.ts): the log, and the waits registered by suspends.
  insertEvent: `INSERT INTO cairn_events (id, name, payload, published_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (id) DO NOTHING`,
  selectEventPublishedAt: `SELECT published_at FROM cairn_events WHERE id = ?`,
  // before, keepId, limit: the oldest first, bounded per call.
  pruneEvents: `DELETE FROM cairn_events WHERE id IN (SELECT id FROM cairn_events
    WHERE published_at < ? AND id <> ? ORDER BY published_at LIMIT ?)`,
  loadEvents: `SELECT id, name, payload, published_at FROM cairn_events
    WHERE name = ? AND published_at >= ? ORDER BY published_at, id`,
  loadEventWaits: `SELECT run_id, seq, name, match_json, started_at FROM cairn_event_waits WHERE name = ?`,
  // A wait already registered at its place (an earlier suspend of the same wait) is kept.
  insertEventWait: `INSERT INTO cairn_event_waits (run_id, seq, name, match_json, started_at)
    VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_id, seq) DO NOTHING`,
  deleteEventWait: `DELETE FROM cairn_event_waits WHERE run_id = ? AND seq = ?`,
  deleteRunEventWaits: `DELETE FROM cairn_event_waits WHERE run_id = ?`,
  // Found through the status index (running runs only), not a table scan.
  reclaimOwned: `UPDATE cairn_runs SET available_at = ?, updated_at = ?
    WHERE available_at IS NOT NULL AND status = 'running' AND lease_owner = ?`,
  ...ADMISSION_SQL,
  ...QUEUE_SQL,
  ...EVENT_BATCH_SQL,
  ...SCHEDULE_SQL,
  ...STEP_LOG_SQL,
} as const

export type Statements = { readonly [K in keyof typeof SQL]: SqliteStatement } & {
  tx: TransactionStatements
}

/** Statements whose rows are read as arrays, by column position (see row_mapping.ts). */
const ARRAY_ROWS: ReadonlySet<string> = new Set([
  'selectRun',
  'claimRun',
  'selectCheckpoint',
  'loadCheckpoints',
  'loadCheckpointPage',
  'loadInbox',
  'loadEvents',
  'loadEventWaits',
  'loadAttributes',
  'selectOpenBatch',
  'dueBatches',
  'batchItems',
  'nextBatchAt',
  ...SCHEDULE_ARRAY_ROWS,
])

export function prepareStatements(db: SqliteDatabase, tx: TransactionStatements): Statements {
  const prepared = Object.fromEntries(
    Object.entries(SQL).map(([key, sql]) => {
      const statement = db.prepare(sql)
      if (ARRAY_ROWS.has(key)) statement.setReturnArrays(true)
      return [key, statement]
    }),
  )
  return { ...(prepared as { [K in keyof typeof SQL]: SqliteStatement }), tx }
}
