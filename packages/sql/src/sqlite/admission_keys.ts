/**
 * admissionKeys on SQLite: the shared statement (../shared/admission_keys.ts) with `?`
 * placeholders, cached by its text. The key table is WITHOUT ROWID in (scope, admission_key)
 * order, BINARY: its primary key is the walk, already in code point order.
 */
import type { SQLInputValue } from 'node:sqlite'
import { checkAdmissionKeysQuery } from '@cairn/core/store-kit'
import type { AdmissionKeyPage, AdmissionKeysQuery } from '@cairn/core/contracts'
import { admissionKeysSql, toAdmissionKeyPage } from '../shared/admission_keys.ts'
import type { StatementCache } from './statement_cache.ts'

export function admissionKeys(cache: StatementCache, query: AdmissionKeysQuery): AdmissionKeyPage {
  const start = checkAdmissionKeysQuery(query)
  const values: SQLInputValue[] = []
  const text = admissionKeysSql(start, {
    runs: 'cairn_runs',
    keys: 'cairn_admission_keys',
    bind: (value) => {
      values.push(value as SQLInputValue)
      return '?'
    },
    byCodePoint: (column) => column,
    useIndex: '',
    rowValues: true,
  })
  if (text === null) return { keys: [], nextCursor: null }
  // A handful of texts (scope given or not, where the cursor stands): each its own entry.
  const rows = cache.get(`admission-keys:${text}`, () => text, true).all(...values)
  return toAdmissionKeyPage(start, rows as unknown as unknown[][])
}
