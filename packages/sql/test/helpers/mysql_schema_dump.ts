/**
 * The schema as the server prints it: SHOW CREATE TABLE of every table in the database, in
 * name order, without the AUTO_INCREMENT counter (it moves with the data). packages/sql/src/mysql/schema.sql
 * is this dump of a freshly migrated database on MariaDB 10.11 (MySQL 8 prints
 * the same tables with small differences of spelling); a test keeps it from going stale.
 */
import type { SqlSession } from '../../src/shared/driver.ts'
import { mysqlDialect } from '../../src/mysql/dialect.ts'

export async function dumpSchema(session: SqlSession, database: string): Promise<string> {
  const { rows } = await session.query({
    text: 'SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME',
    values: [database],
  })
  const tables: string[] = []
  for (const [table] of rows) {
    const name = `${mysqlDialect.quoteIdent(database)}.${mysqlDialect.quoteIdent(String(table))}`
    const shown = await session.query({ text: `SHOW CREATE TABLE ${name}`, values: [] })
    const definition = String(shown.rows[0]?.[1]).replace(/ AUTO_INCREMENT=\d+/, '')
    tables.push(`${definition};\n`)
  }
  return tables.join('\n')
}
