import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Schedules (StateStore.putSchedule … advanceSchedule; docs/design/schedules.md): the SQLite
 * migration 19 in Postgres types. Ids, workflow names and versions are `COLLATE "C"` like run
 * ids: compared and sorted by code point (listSchedules' order, the claim's tie-break). The
 * spec is TEXT (up to 1 MiB, TOASTed). Times, counters and the revision are BIGINT.
 * `cairn_schedules_due (next_at, id, workflow) WHERE NOT paused AND next_at IS NOT NULL` holds
 * exactly the schedules a claim may take, in claim order (the workflow in it so a claim passes
 * over other engines' workflows in the index) and answers a claim's `nextAt`; a claim's
 * `NOT paused AND next_at <= $n` implies its predicate (`<=` is strict), so the generic plan of
 * the prepared statement uses it too. New table only: nothing is rewritten.
 */
export const schedules: Migration = {
  revision: 19,
  name: 'schedules',
  statements: (t: Tables) => [
    `CREATE TABLE ${t.schedules} (
  id TEXT COLLATE "C" NOT NULL PRIMARY KEY,
  workflow TEXT COLLATE "C" NOT NULL,
  version TEXT COLLATE "C",
  spec TEXT NOT NULL,
  paused BOOLEAN NOT NULL,
  next_at BIGINT,
  last_window BIGINT,
  last_run_id TEXT COLLATE "C",
  buffered_window BIGINT,
  fired BIGINT NOT NULL,
  skipped BIGINT NOT NULL,
  revision BIGINT NOT NULL,
  created_at BIGINT NOT NULL,
  updated_at BIGINT NOT NULL,
  lease_owner TEXT,
  lease_until BIGINT
)`,
    `CREATE INDEX cairn_schedules_due ON ${t.schedules} (next_at, id, workflow)
      WHERE NOT paused AND next_at IS NOT NULL`,
  ],
}
