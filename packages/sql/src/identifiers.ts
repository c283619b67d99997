/**
 * Schema and database names Cairn puts in its SQL (the Postgres store, the db transport),
 * checked when they are configured. Imports nothing of a store: a db-transport worker loads it.
 */
import { InvalidArgumentError } from '@cairn/core/errors'

const MAX_IDENTIFIER_BYTES = 63

/** Any Postgres identifier kept whole: not empty, no NUL, at most 63 bytes (quoted in SQL). */
export function checkSchemaName(schema: unknown, call: string): string {
  if (
    typeof schema !== 'string' ||
    schema === '' ||
    schema.includes('\u0000') ||
    Buffer.byteLength(schema) > MAX_IDENTIFIER_BYTES
  )
    throw new InvalidArgumentError(
      `${call}: schema must be a name of 1 to ${MAX_IDENTIFIER_BYTES} bytes without NUL, got ${JSON.stringify(schema)}`,
      { details: { call, option: 'schema' } },
    )
  return schema
}

/** A MariaDB/MySQL database name: 1 to 64 characters, none of them NUL, no trailing space. */
export function checkDatabaseName(database: unknown, call: string): string {
  if (
    typeof database !== 'string' ||
    database === '' ||
    database.length > 64 ||
    database.includes('\u0000') ||
    database.endsWith(' ')
  )
    throw new InvalidArgumentError(
      `${call}: database must be a name of 1 to 64 characters without NUL or a trailing space, got ${JSON.stringify(database)}`,
      { details: { call, option: 'database' } },
    )
  return database
}
