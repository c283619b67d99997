import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Broadcast events: the Postgres migration 5 (docs/postgres.md) in MySQL/MariaDB types.
 *
 * - `cairn_events`, the event log (kept for a retention window), keyed by the event id;
 *   `(name, published_at)` serves a suspending run's read of one name's recent events,
 *   `(published_at)` the pruning.
 * - `cairn_event_waits`, the event waits of suspended runs, keyed `(run_id, seq)`; `(name)`
 *   serves a publish, which reads one name's waits.
 * - Ids and names are VARBINARY like run ids (byte for byte); payloads LONGTEXT like the
 *   other payloads; the match is JSON text (NULL: any event).
 * - Idempotent, as every migration here: CREATE TABLE IF NOT EXISTS with its keys inline.
 */
export const events: Migration = {
  revision: 5,
  name: 'events',
  statements: (t: Tables) => [
    `CREATE TABLE IF NOT EXISTS ${t.events} (
  id VARBINARY(1020) NOT NULL,
  name VARBINARY(1020) NOT NULL,
  payload LONGTEXT NOT NULL,
  published_at BIGINT NOT NULL,
  PRIMARY KEY (id),
  KEY cairn_events_name_published (name, published_at),
  KEY cairn_events_published (published_at)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
    `CREATE TABLE IF NOT EXISTS ${t.eventWaits} (
  run_id VARBINARY(1020) NOT NULL,
  seq BIGINT NOT NULL,
  name VARBINARY(1020) NOT NULL,
  match_json LONGTEXT NULL,
  started_at BIGINT NOT NULL,
  PRIMARY KEY (run_id, seq),
  KEY cairn_event_waits_name (name)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
}
