import type { Migration } from './migration.ts'

/**
 * Broadcast events (docs/broadcast_events.md).
 *
 * `cairn_events` is the event log, kept for a retention window only, keyed by the event id (a
 * retried publish inserts nothing); `(name, published_at)` serves a suspending run's read of
 * one name's recent events, `(published_at)` the pruning. `cairn_event_waits` holds the event
 * waits of suspended runs, keyed `(run_id, seq)`, with `(name)` for a publish, which reads one
 * name's waits. The run's id rather than its key: a publisher delivers by id without a join.
 * `match_json` is the wait's match as JSON text (NULL: any event).
 */
export const events: Migration = {
  revision: 5,
  name: 'events',
  sql: `
CREATE TABLE cairn_events (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  payload TEXT NOT NULL,
  published_at INTEGER NOT NULL
) STRICT;

CREATE INDEX cairn_events_name_published ON cairn_events (name, published_at);

CREATE INDEX cairn_events_published ON cairn_events (published_at);

CREATE TABLE cairn_event_waits (
  run_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  name TEXT NOT NULL,
  match_json TEXT,
  started_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
) STRICT;

CREATE INDEX cairn_event_waits_name ON cairn_event_waits (name);
`,
}
