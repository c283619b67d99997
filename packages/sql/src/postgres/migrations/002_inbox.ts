import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Run inboxes (signals).
 *
 * - `inbox_seq` on the run row counts the messages accepted: a suspend compares it with what
 *   its turn has seen in the same UPDATE that suspends, so the run row is where a wake-up
 *   cannot be lost. A constant default: adding it rewrites nothing (Postgres 11+).
 * - Messages hang off the run's integer key like checkpoints, keyed `(run_key, seq)`: a run's
 *   inbox is one range of the primary key, in acceptance order. Consumed messages stay, marked
 *   with `consumed_at`, so their dedupe ids are still remembered.
 * - Unique `(run_key, dedupe_id)`: a resend of an id is found with one index lookup, and two
 *   concurrent deliveries of one id cannot both be stored. NULL ids never collide (NULLs are
 *   distinct in a unique index). Not partial: a partial index serves a join only when the
 *   query repeats its predicate.
 * - Names and dedupe ids are `COLLATE "C"` like run ids: compared byte for byte. The payload is
 *   TEXT, kept byte for byte like the other payloads. No foreign key, as for checkpoints:
 *   every message is inserted through its run's row, locked in the same statement.
 */
export const inbox: Migration = {
  revision: 2,
  name: 'inbox',
  statements: (t: Tables) => [
    `ALTER TABLE ${t.runs} ADD COLUMN inbox_seq BIGINT NOT NULL DEFAULT 0`,
    `CREATE TABLE ${t.messages} (
  run_key BIGINT NOT NULL,
  seq BIGINT NOT NULL,
  kind TEXT NOT NULL,
  name TEXT COLLATE "C" NOT NULL,
  dedupe_id TEXT COLLATE "C",
  payload TEXT NOT NULL,
  accepted_at BIGINT NOT NULL,
  consumed_at BIGINT,
  PRIMARY KEY (run_key, seq)
)`,
    `CREATE UNIQUE INDEX cairn_messages_dedupe ON ${t.messages} (run_key, dedupe_id)`,
  ],
}
