import type { Migration } from './migration.ts'

/**
 * Search attributes (`ctx.upsertSearchAttributes`): one row per (run, name), keyed like
 * checkpoints by the run's integer key and removed with the run.
 *
 * A value is a type tag (`text`, `number`, `bool`, `time`) and one of two columns: `text_value`
 * (BINARY collation: code point order, as everywhere) or `number_value` (REAL: numbers as
 * they are, booleans 0/1, times in ms — exact below 2^53). One index per value column, led by
 * (name, type): a filter on one attribute is one range of it, whatever the operator.
 */
export const searchAttributes: Migration = {
  revision: 6,
  name: 'search_attributes',
  sql: `
CREATE TABLE cairn_search_attributes (
  run_key INTEGER NOT NULL REFERENCES cairn_runs (key) ON DELETE CASCADE,
  name TEXT NOT NULL,
  type TEXT NOT NULL,
  text_value TEXT,
  number_value REAL,
  PRIMARY KEY (run_key, name)
) STRICT;

CREATE INDEX cairn_search_attributes_text ON cairn_search_attributes (name, type, text_value, run_key);

CREATE INDEX cairn_search_attributes_number ON cairn_search_attributes (name, type, number_value, run_key);
`,
}
