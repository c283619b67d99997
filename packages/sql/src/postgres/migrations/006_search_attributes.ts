import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Search attributes (`ctx.upsertSearchAttributes`): the SQLite migration 6 in Postgres types.
 *
 * - One row per (run, name), keyed by the run's integer key like checkpoints; no foreign key
 *   (as for checkpoints): every row is written through its run's row in the checkpoint's
 *   transaction, and deleting runs deletes their attributes with them.
 * - A type tag and one of two value columns: `text_value` `COLLATE "C"` (code point order,
 *   like ids and the memory store) or `number_value` DOUBLE PRECISION (numbers, booleans as
 *   0/1, times in ms — exact below 2^53).
 * - One index per value column, led by (name, type), with the run key last: a filter on one
 *   attribute is one range of an index, and an index-only scan yields the run keys.
 */
export const searchAttributes: Migration = {
  revision: 6,
  name: 'search_attributes',
  statements: (t: Tables) => [
    `CREATE TABLE ${t.searchAttributes} (
  run_key BIGINT NOT NULL,
  name TEXT COLLATE "C" NOT NULL,
  type TEXT NOT NULL,
  text_value TEXT COLLATE "C",
  number_value DOUBLE PRECISION,
  PRIMARY KEY (run_key, name)
)`,
    `CREATE INDEX cairn_search_attributes_text ON ${t.searchAttributes} (name, type, text_value, run_key)`,
    `CREATE INDEX cairn_search_attributes_number ON ${t.searchAttributes} (name, type, number_value, run_key)`,
  ],
}
