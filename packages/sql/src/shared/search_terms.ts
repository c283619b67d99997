/**
 * A search attribute term as SQL: `<run key> IN (the keys of runs whose attribute matches)`,
 * one range of the attribute index led by (name, type) — the value column decides which
 * index. Written once for every dialect (SQLite included): only placeholders differ.
 * Values are always bound, never written into the text.
 */
import type { SearchTerm } from '@cairn/core/store-kit'

const SQL_OPERATOR = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

/** The text of one term; `bind(value)` adds a bound value and returns its placeholder. */
export function searchTermSql(
  term: SearchTerm,
  runKey: string,
  attributesTable: string,
  bind: (value: unknown) => string,
  bindDouble: (value: number) => string = bind,
): string {
  const text = term.operand.type === 'text'
  const column = text ? 'text_value' : 'number_value'
  // Bound in text order: MySQL's `?` placeholders are positional.
  const name = bind(term.name)
  const type = bind(term.operand.type)
  const operand = text ? bind(term.operand.text) : bindDouble(term.operand.number as number)
  return `${runKey} IN (SELECT a.run_key FROM ${attributesTable} a WHERE a.name = ${name}
    AND a.type = ${type} AND a.${column} ${SQL_OPERATOR[term.op]} ${operand})`
}

/** What distinguishes two terms' statement texts (SQLite caches one statement per shape). */
export function searchTermShape(term: SearchTerm): string {
  return `${term.op}:${term.operand.type === 'text' ? 't' : 'n'}`
}
