import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Runs and checkpoints: the SQLite schema (docs/sqlite.md) in Postgres types.
 *
 * - Times, epochs, seqs and counts are BIGINT (milliseconds since 1970 need more than 32 bits).
 * - Payloads are TEXT, not jsonb: jsonb rejects a `\u0000` escape and reorders keys, and the
 *   store must return the codec's text byte for byte.
 * - `id` is `COLLATE "C"`: ids compare byte by byte, i.e. by code point, whatever the database
 *   collation, which is the order listRuns and its cursor promise.
 * - Checkpoints hang off the run's integer `key` (an identity, assigned in creation order):
 *   the runs an engine works on are the recent ones, so a batch's checkpoint index entries sit
 *   together at the end of the index instead of at 50 random places.
 * - The CHECKs are the invariants the claim relies on: only pending, waiting and running runs
 *   carry an `available_at`, and a running run always has one (its lease expiry).
 * - No foreign key from checkpoints to runs (SQLite has one): every checkpoint is inserted
 *   through its run's row, locked in the same statement (the fence), which already guarantees
 *   the run exists until commit; the foreign key's per-row trigger (a second lookup and lock
 *   of the run) cost 10–20% of a save batch. Deleting runs (retention, to come) deletes their
 *   checkpoints in the same statement.
 */
export const initial: Migration = {
  revision: 1,
  name: 'initial',
  statements: (t: Tables) => [
    `CREATE TABLE ${t.runs} (
  key BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id TEXT COLLATE "C" NOT NULL UNIQUE,
  workflow TEXT NOT NULL,
  version TEXT NOT NULL,
  status TEXT NOT NULL,
  input TEXT NOT NULL,
  output TEXT,
  error TEXT,
  park_reason TEXT,
  waiting_on TEXT,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  finished_at BIGINT,
  available_at BIGINT,
  lease_owner TEXT,
  lease_epoch BIGINT NOT NULL,
  turns BIGINT NOT NULL,
  CONSTRAINT cairn_runs_claimable_status CHECK (available_at IS NULL OR status IN ('pending', 'running', 'waiting')),
  CONSTRAINT cairn_runs_running_leased CHECK (status <> 'running' OR available_at IS NOT NULL)
)`,
    `CREATE INDEX cairn_runs_claimable ON ${t.runs} (available_at, workflow, version)
  WHERE available_at IS NOT NULL`,
    `CREATE INDEX cairn_runs_created ON ${t.runs} (created_at DESC, id DESC)`,
    `CREATE INDEX cairn_runs_workflow_created ON ${t.runs} (workflow, created_at DESC, id DESC)`,
    `CREATE INDEX cairn_runs_status_created ON ${t.runs} (status, created_at DESC, id DESC)`,
    `CREATE TABLE ${t.checkpoints} (
  run_key BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  name TEXT NOT NULL,
  kind TEXT NOT NULL,
  status TEXT NOT NULL,
  attempts BIGINT NOT NULL,
  delivery_order BIGINT,
  output TEXT,
  error TEXT,
  wake_at BIGINT,
  started_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  PRIMARY KEY (run_key, seq)
)`,
  ],
}
