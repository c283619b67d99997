/**
 * One search attribute condition as a query string gives it: `name:op:value`, op one of
 * eq|ne|gt|gte|lt|lte. The value is a number when it parses as one, `true`/`false` a
 * boolean, else a string; `name:op:s:value` keeps it a string (`amount:eq:s:100`).
 */
import { type SearchAttributeOperator } from '@cairn/core'
import { checkAttributeName } from '@cairn/core/store-kit'
import { badRequest } from '../http/http_error.ts'

const OPERATORS: readonly string[] = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte']

export interface AttrCondition {
  name: string
  op: SearchAttributeOperator
  value: string | number | boolean
}

export function parseAttrCondition(text: string): AttrCondition {
  const first = text.indexOf(':')
  const second = first < 0 ? -1 : text.indexOf(':', first + 1)
  if (first <= 0 || second < 0) throw badRequest('attr must be name:op:value')
  const name = text.slice(0, first)
  try {
    checkAttributeName(name, 'attr')
  } catch (error) {
    throw badRequest((error as Error).message)
  }
  const op = text.slice(first + 1, second)
  if (!OPERATORS.includes(op))
    throw badRequest(`attr operator must be one of ${OPERATORS.join(', ')}`)
  const rest = text.slice(second + 1)
  const value = rest.startsWith('s:') ? rest.slice(2) : typed(rest)
  return { name, op: op as SearchAttributeOperator, value }
}

function typed(text: string): string | number | boolean {
  if (text === 'true') return true
  if (text === 'false') return false
  const n = Number(text)
  return text.trim() !== '' && Number.isFinite(n) ? n : text
}
