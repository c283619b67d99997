import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Slot leases: the SQLite migration 22 in Postgres types. The queue and the owner are
 * `COLLATE "C"` like queue names (compared by code point); a grant pass sums a queue's
 * unexpired leases on a range of the primary key. New table only.
 */
export const queueLeases: Migration = {
  revision: 22,
  name: 'queue_leases',
  statements: (t: Tables) => [
    `CREATE TABLE ${t.queueLeases} (
  queue TEXT COLLATE "C" NOT NULL,
  owner TEXT COLLATE "C" NOT NULL,
  slots INTEGER NOT NULL,
  expires_at BIGINT NOT NULL,
  PRIMARY KEY (queue, owner)
)`,
  ],
}
