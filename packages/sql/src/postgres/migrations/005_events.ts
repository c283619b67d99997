import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Broadcast events (`engine.publishEvent`, `ctx.waitForEvent`, docs/broadcast_events.md).
 *
 * - `cairn_events`: the event log, kept for a retention window only (a publish prunes it).
 *   Keyed by the event id (`COLLATE "C"`, like run ids): a retried publish inserts nothing.
 *   `(name, published_at)` serves a suspending run's read of one name's recent events;
 *   `(published_at)` serves pruning, oldest first.
 * - `cairn_event_waits`: the event waits of suspended runs, keyed `(run_id, seq)` (the run's
 *   id, not its key: a publisher delivers by id without a join). `(name)` serves a publish,
 *   which reads one name's waits and matches them in the engine. `match_json` is the wait's
 *   match as JSON text (NULL: any event). No foreign keys: rows are written beside their run's
 *   suspend and removed with the wait, and a stale row is harmless (docs/broadcast_events.md).
 */
export const events: Migration = {
  revision: 5,
  name: 'events',
  statements: (t: Tables) => [
    `CREATE TABLE ${t.events} (
  id TEXT COLLATE "C" PRIMARY KEY,
  name TEXT COLLATE "C" NOT NULL,
  payload TEXT NOT NULL,
  published_at BIGINT NOT NULL
)`,
    `CREATE INDEX cairn_events_name_published ON ${t.events} (name, published_at)`,
    `CREATE INDEX cairn_events_published ON ${t.events} (published_at)`,
    `CREATE TABLE ${t.eventWaits} (
  run_id TEXT COLLATE "C" NOT NULL,
  seq BIGINT NOT NULL,
  name TEXT COLLATE "C" NOT NULL,
  match_json TEXT,
  started_at BIGINT NOT NULL,
  PRIMARY KEY (run_id, seq)
)`,
    `CREATE INDEX cairn_event_waits_name ON ${t.eventWaits} (name)`,
  ],
}
