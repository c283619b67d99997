/** The Postgres spelling of the pieces shared SQL leaves to the dialect (shared/dialect.ts). */
import { createHash } from 'node:crypto'
import type { SqlDialect, SqlType } from '../shared/dialect.ts'
import type { Params } from '../shared/params.ts'
import { recordsetJson, recordsetSql } from './recordset.ts'

/**
 * Identifies Cairn's migration lock among other advisory locks of the database: the two-key
 * form `pg_advisory_xact_lock(int, int)` with this as the first key and a hash of the schema
 * as the second, so migrators of different schemas do not wait for each other.
 */
const MIGRATION_LOCK_CLASS = 0x43616972 // 'Cair'

/** The first key of the advisory locks of lockNames (the second: a hash of the name). */
const NAME_LOCK_CLASS = 0x4361696e // 'Cain'

/**
 * Transaction advisory locks on `names`, by the first 32 bits of their SHA-1, taken in
 * ascending order (unnest keeps the array's), so no two callers take two in opposite orders.
 */
function lockNames(params: Params, names: readonly string[]): string {
  const keys = [
    ...new Set(names.map((name) => createHash('sha1').update(name).digest().readInt32BE(0))),
  ]
  keys.sort((a, b) => a - b)
  return `SELECT pg_advisory_xact_lock(${NAME_LOCK_CLASS}, k) FROM unnest(${params.add(keys, 'int4[]')}) AS k`
}

/**
 * Creates the schema only when it is missing: a plain CREATE SCHEMA IF NOT EXISTS checks the
 * CREATE privilege on the database first, and would fail for a role that owns its existing
 * schema but may not create new ones.
 */
function createSchema(schema: string): string {
  const body = `BEGIN IF to_regnamespace(${literal(schema)}) IS NULL THEN EXECUTE format('CREATE SCHEMA %I', ${literal(schema)}); END IF; END`
  return `DO ${literal(body)}`
}

/** An escape-string literal: correct whatever standard_conforming_strings says. */
function literal(text: string): string {
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`
}

/** Rows for multi-row statements: see recordset.ts. */
function rowSource(
  params: Params,
  alias: string,
  columns: ReadonlyArray<readonly [name: string, type: SqlType]>,
  rows: readonly (readonly unknown[])[],
): string {
  return recordsetSql(params.add(recordsetJson(columns, rows), 'json'), alias, columns)
}

export const postgresDialect: SqlDialect = {
  name: 'postgres',
  placeholder: (n, type) => (type === undefined ? `$${n}` : `$${n}::${type}`),
  quoteIdent: (name) => `"${name.replaceAll('"', '""')}"`,
  inList: (params: Params, column: string, values: readonly unknown[], type: SqlType) =>
    `${column} = ANY(${params.add(values, `${type}[]`)})`,
  rowSource,
  updateFrom: (table, alias, source, on, assignments) =>
    `UPDATE ${table} ${alias} SET ${assignments('')} FROM ${source} WHERE ${on}`,
  ignoreDuplicate: () => 'ON CONFLICT DO NOTHING',
  double: (params, value) => params.add(value, 'float8'),
  upsert: (keys, columns) =>
    `ON CONFLICT (${keys.join(', ')}) DO UPDATE SET ${columns.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}`,
  // NO KEY UPDATE: does not conflict with the KEY SHARE locks of foreign key checks.
  lockRows: 'FOR NO KEY UPDATE',
  lockRowsSkipLocked: 'FOR NO KEY UPDATE SKIP LOCKED',
  lockRowsShared: 'FOR KEY SHARE',
  useIndex: () => '',
  // `json`, not `jsonb`: json keeps the text as written and accepts a \u0000 escape elsewhere
  // in the document, which jsonb refuses.
  jsonField: (column, field) => `(${column}::json ->> '${field.replaceAll("'", "''")}')`,
  createSchema,
  migrationLock: (schema) => ({
    acquire: {
      text: 'SELECT pg_advisory_xact_lock($1, hashtext($2))',
      values: [MIGRATION_LOCK_CLASS, schema],
    },
    release: null,
  }),
  lockNames,
  byCodePoint: (column) => `${column} COLLATE "C"`,
}
