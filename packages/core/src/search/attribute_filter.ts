/**
 * A listRuns search attribute filter, checked and flattened into terms: one (name, operator,
 * typed operand) each, ANDed. Stores turn each term into one index lookup (an EXISTS on the
 * attribute table in SQL); the memory store evaluates them with `termMatches`.
 */
import type {
  SearchAttributeFilter,
  SearchAttributeOperator,
  SearchAttributeValue,
} from '../contracts/search_attributes.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { compareCodePoints } from '../store/memory/code_point_order.ts'
import { checkAttributeName, checkAttributeValue } from './attribute_values.ts'
import { toTypedValue, type TypedValue } from './typed_value.ts'

export const MAX_FILTER_TERMS = 16

const OPERATORS: ReadonlySet<string> = new Set(['eq', 'ne', 'gt', 'gte', 'lt', 'lte'])

export interface SearchTerm {
  name: string
  op: SearchAttributeOperator
  operand: TypedValue
}

const WHERE = 'listRuns'

/** The filter's terms ([] for none). Throws E_INVALID_ARGUMENT for a malformed filter. */
export function parseSearchFilter(filter: SearchAttributeFilter | undefined): SearchTerm[] {
  if (filter === undefined) return []
  if (typeof filter !== 'object' || filter === null || Array.isArray(filter)) {
    throw new InvalidArgumentError(`${WHERE}: searchAttributes must be a plain object`, {
      details: { reason: 'shape' },
    })
  }
  const terms: SearchTerm[] = []
  for (const [name, entry] of Object.entries(filter)) {
    checkAttributeName(name, WHERE)
    for (const [op, value] of conditions(name, entry)) {
      const operand = toTypedValue(checkAttributeValue(name, value, WHERE))
      terms.push({ name, op, operand })
    }
  }
  if (terms.length > MAX_FILTER_TERMS) {
    throw new InvalidArgumentError(
      `${WHERE}: at most ${MAX_FILTER_TERMS} search attribute conditions (got ${terms.length})`,
      { details: { count: terms.length, reason: 'count' } },
    )
  }
  return terms
}

function conditions(name: string, entry: unknown): Array<[SearchAttributeOperator, unknown]> {
  if (isPlainObject(entry)) {
    const pairs = Object.entries(entry)
    const unknown = pairs.find(([op]) => !OPERATORS.has(op))
    if (pairs.length === 0 || unknown !== undefined) {
      throw new InvalidArgumentError(
        `${WHERE}: the condition on search attribute "${name}" must use eq, ne, gt, gte, lt or lte${unknown === undefined ? '' : ` (got "${unknown[0]}")`}`,
        { details: { name, reason: 'operator' } },
      )
    }
    return pairs as Array<[SearchAttributeOperator, unknown]>
  }
  return [['eq', entry]]
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
  )
}

/** Whether a stored value satisfies a term (the memory store's evaluation). */
export function termMatches(stored: SearchAttributeValue | undefined, term: SearchTerm): boolean {
  if (stored === undefined) return false
  const value = toTypedValue(stored)
  if (value.type !== term.operand.type) return false
  const order =
    value.type === 'text'
      ? compareCodePoints(value.text as string, term.operand.text as string)
      : (value.number as number) - (term.operand.number as number)
  switch (term.op) {
    case 'eq':
      return order === 0
    case 'ne':
      return order !== 0
    case 'gt':
      return order > 0
    case 'gte':
      return order >= 0
    case 'lt':
      return order < 0
    case 'lte':
      return order <= 0
  }
}
