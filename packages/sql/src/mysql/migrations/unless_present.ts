/**
 * DDL that MySQL 8 cannot make idempotent by itself (no `ADD COLUMN IF NOT EXISTS`, no
 * `CREATE INDEX IF NOT EXISTS`; MariaDB has both): the statement is chosen from
 * information_schema and run as a prepared statement, so a migration cut short by a crash
 * can be run again from its first statement (DDL commits statement by statement).
 */
import { escape } from 'mysql2/promise'
import type { Tables } from '../../shared/tables.ts'

/** ALTER TABLE … ADD COLUMN when information_schema does not list the column yet. */
export function addColumnUnlessPresent(
  t: Tables,
  table: string,
  qualified: string,
  definition: string,
): string[] {
  const column = definition.split(' ')[0] as string
  const present = `SELECT 1 FROM information_schema.COLUMNS
    WHERE TABLE_SCHEMA = ${escape(t.schema)} AND TABLE_NAME = ${escape(table)} AND COLUMN_NAME = ${escape(column)}`
  return unless(present, `ALTER TABLE ${qualified} ADD COLUMN ${definition}`)
}

/** ALTER TABLE … ADD KEY `name` (…) when information_schema does not list the index yet. */
export function addIndexUnlessPresent(
  t: Tables,
  table: string,
  qualified: string,
  name: string,
  columns: string,
): string[] {
  const present = `SELECT 1 FROM information_schema.STATISTICS
    WHERE TABLE_SCHEMA = ${escape(t.schema)} AND TABLE_NAME = ${escape(table)} AND INDEX_NAME = ${escape(name)}`
  return unless(present, `ALTER TABLE ${qualified} ADD KEY ${name} (${columns})`)
}

function unless(present: string, ddl: string): string[] {
  return [
    `SET @cairn_ddl = IF(EXISTS(${present}), 'DO 0', ${escape(ddl)})`,
    'PREPARE cairn_ddl FROM @cairn_ddl',
    'EXECUTE cairn_ddl',
    'DEALLOCATE PREPARE cairn_ddl',
  ]
}
