/**
 * A search attribute term as SQL: `<run key> IN (the keys of runs whose attribute matches)`,
 * one range of the attribute index led by (name, type) — the value column decides which
 * index. Written once for every dialect (SQLite included): only placeholders differ.
 * Values are always bound, never written into the text.
 */
import type { SearchTerm } from '@cairn/core'

const SQL_OPERATOR = { eq: '=', ne: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const

/** The text of one term; `bind(value)` adds a bound value and returns its placeholder. */
export function searchTermSql(
  term: SearchTerm,
  runKey: string,
  attributesTable: string,
  bind: (value: unknown) => string,
): string {
  const text = term.operand.type === 'text'
  const column = text ? 'text_value' : 'number_value'
  const operand = text ? term.operand.text : term.operand.number
  return `${runKey} IN (SELECT a.run_key FROM ${attributesTable} a WHERE a.name = ${bind(term.name)}
    AND a.type = ${bind(term.operand.type)} AND a.${column} ${SQL_OPERATOR[term.op]} ${bind(operand)})`
}

/** What distinguishes two terms' statement texts (SQLite caches one statement per shape). */
export function searchTermShape(term: SearchTerm): string {
  return `${term.op}:${term.operand.type === 'text' ? 't' : 'n'}`
}
