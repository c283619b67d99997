import type { Migration } from './migration.ts'

/**
 * Run inboxes (signals).
 *
 * `inbox_seq` on the run row counts the messages accepted: a suspend compares it with what its
 * turn has seen in the UPDATE that suspends, so no message accepted meanwhile goes unnoticed.
 *
 * `cairn_messages` hangs off the run's integer key like checkpoints, keyed `(run_key, seq)`:
 * a run's inbox is one range of the primary key, in acceptance order. Consumed messages stay
 * (`consumed_at` set), so their dedupe ids are still remembered. The unique
 * `(run_key, dedupe_id)` finds a resent id in one lookup; NULLs are distinct in a SQLite
 * unique index, so messages without an id never collide.
 */
export const inbox: Migration = {
  revision: 2,
  name: 'inbox',
  sql: `
ALTER TABLE cairn_runs ADD COLUMN inbox_seq INTEGER NOT NULL DEFAULT 0;

CREATE TABLE cairn_messages (
  run_key INTEGER NOT NULL REFERENCES cairn_runs (key) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  kind TEXT NOT NULL,
  name TEXT NOT NULL,
  dedupe_id TEXT,
  payload TEXT NOT NULL,
  accepted_at INTEGER NOT NULL,
  consumed_at INTEGER,
  PRIMARY KEY (run_key, seq)
) STRICT;

CREATE UNIQUE INDEX cairn_messages_dedupe ON cairn_messages (run_key, dedupe_id);
`,
}
