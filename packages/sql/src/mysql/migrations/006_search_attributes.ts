import type { Migration } from '../../shared/migration.ts'
import type { Tables } from '../../shared/tables.ts'

/**
 * Search attributes: the Postgres migration 6 (docs/postgres.md) in MySQL/MariaDB types.
 *
 * - `name` and `text_value` are VARBINARY (byte for byte: code point order, and no
 *   trailing-space padding: `'a'` and `'a '` are two values, as everywhere else). A text value
 *   is at most 256 UTF-16 units, so at most 768 bytes of UTF-8; the text index entry (64 +
 *   8 + 1024 + 8 bytes) stays under InnoDB's 3072-byte key limit.
 * - `number_value` DOUBLE: numbers, booleans as 0/1, times in ms (exact below 2^53).
 * - One index per value column, led by (name, type): a filter on one attribute is one range.
 * - Idempotent like every migration here: `CREATE TABLE IF NOT EXISTS` with its keys inline.
 */
export const searchAttributes: Migration = {
  revision: 6,
  name: 'search_attributes',
  statements: (t: Tables) => [
    `CREATE TABLE IF NOT EXISTS ${t.searchAttributes} (
  run_key BIGINT NOT NULL,
  name VARBINARY(64) NOT NULL,
  type VARCHAR(8) CHARACTER SET ascii COLLATE ascii_bin NOT NULL,
  text_value VARBINARY(1024) NULL,
  number_value DOUBLE NULL,
  PRIMARY KEY (run_key, name),
  KEY cairn_search_attributes_text (name, type, text_value, run_key),
  KEY cairn_search_attributes_number (name, type, number_value, run_key)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
  ],
}
