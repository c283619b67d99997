/**
 * The schema as SQLite stores it (`sqlite_master.sql`), tables first, one statement per
 * paragraph. packages/sql/src/sqlite/schema.sql is this dump of a freshly migrated database; a test
 * keeps it from going stale.
 */
import type { DatabaseSync } from 'node:sqlite'

export function dumpSchema(db: DatabaseSync): string {
  const rows = db
    .prepare(
      `SELECT sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%'
       ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, name`,
    )
    .all() as { sql: string }[]
  return rows.map((row) => `${row.sql};\n`).join('\n')
}
