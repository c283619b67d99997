import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Singleton admission: the SQLite migration 12 in Postgres types. A run keeps the key it was
 * admitted under and, while `queued`, its place in the key's queue; slots are counted from the
 * runs through the partial index (only runs with a key are in it); `cairn_admission_keys`
 * holds each key's limit and next queue number, and its row is the lock admissions and
 * promotions of the key take. Nullable columns without defaults: nothing is rewritten.
 */
export const admission: Migration = {
  revision: 12,
  name: 'admission',
  statements: (t: Tables) => [
    `ALTER TABLE ${t.runs} ADD COLUMN admission_scope TEXT`,
    `ALTER TABLE ${t.runs} ADD COLUMN admission_key TEXT`,
    `ALTER TABLE ${t.runs} ADD COLUMN admission_seq BIGINT`,
    `CREATE INDEX cairn_runs_admission ON ${t.runs}
      (admission_scope, admission_key, status, admission_seq) WHERE admission_scope IS NOT NULL`,
    `CREATE TABLE ${t.admissionKeys} (
      scope TEXT NOT NULL,
      admission_key TEXT NOT NULL,
      lim BIGINT NOT NULL,
      next_seq BIGINT NOT NULL,
      PRIMARY KEY (scope, admission_key)
    )`,
  ],
}
