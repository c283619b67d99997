import type { Migration } from './migration.ts'

/**
 * Schedules (StateStore.putSchedule … advanceSchedule; docs/design/schedules.md): one row per
 * schedule, keyed by its id — the workflow (and version) it starts, its engine-owned `spec`
 * (JSON text up to 1 MiB the store never reads inside), `paused` (0/1), its firing state
 * (`next_at`, `last_window`, `last_run_id`, `buffered_window`, the `fired` / `skipped`
 * counters), `revision` (+1 per put: an advance names the one it was computed from) and the
 * claim's lease (`lease_owner`, `lease_until`, NULL when free). Times in ms. TEXT compares
 * byte for byte (BINARY collation), which for UTF-8 is code point order: listSchedules' order.
 * The partial `(next_at, id, workflow)` holds exactly the schedules a claim may take (not
 * paused, with a next window), in claim order, the workflow in it so a claim passes over
 * other engines' workflows in the index; it also answers a claim's `nextAt`. A rowid table,
 * as specs may be large. New table only: nothing is rewritten.
 */
export const schedules: Migration = {
  revision: 19,
  name: 'schedules',
  sql: `
CREATE TABLE cairn_schedules (
  id TEXT NOT NULL PRIMARY KEY,
  workflow TEXT NOT NULL,
  version TEXT,
  spec TEXT NOT NULL,
  paused INTEGER NOT NULL CHECK (paused IN (0, 1)),
  next_at INTEGER,
  last_window INTEGER,
  last_run_id TEXT,
  buffered_window INTEGER,
  fired INTEGER NOT NULL,
  skipped INTEGER NOT NULL,
  revision INTEGER NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  lease_owner TEXT,
  lease_until INTEGER
) STRICT;
CREATE INDEX cairn_schedules_due ON cairn_schedules (next_at, id, workflow)
  WHERE NOT paused AND next_at IS NOT NULL;
`,
}
