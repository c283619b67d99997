/**
 * Type parsing for Cairn's queries, passed with every query (never installed globally, so
 * other users of `pg` in the process keep their parsers). node-postgres returns int8 as a
 * string by default; Cairn's times, epochs and seqs are BIGINT, so int8 becomes a number when
 * it is exact. A value beyond 2^53 stays a string, and shared/integers.ts refuses it loudly:
 * never a rounded number.
 */
import pg from 'pg'
import type { CustomTypesConfig } from 'pg'

const INT8_OID = 20

function parseInt8(text: string): number | string {
  const value = Number(text)
  return Number.isSafeInteger(value) ? value : text
}

export const PG_TYPES: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8_OID
      ? parseInt8
      : pg.types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
}
