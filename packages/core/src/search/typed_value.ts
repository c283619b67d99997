/**
 * How a search attribute value is kept in a store: a type tag and one of two columns (text,
 * or a number: finite numbers as they are, booleans as 0/1, times as integer milliseconds).
 * Filters compare within one type, so the tag is part of every lookup.
 */
import type { SearchAttributeValue } from '../contracts/search_attributes.ts'

export type AttributeType = 'text' | 'number' | 'bool' | 'time'

export interface TypedValue {
  type: AttributeType
  /** The value of a `text` attribute, else null. */
  text: string | null
  /** The value of the other types (bool: 0/1, time: ms), else null. */
  number: number | null
}

export function toTypedValue(value: SearchAttributeValue): TypedValue {
  if (typeof value === 'string') return { type: 'text', text: value, number: null }
  if (typeof value === 'number') return { type: 'number', text: null, number: value }
  if (typeof value === 'boolean') return { type: 'bool', text: null, number: value ? 1 : 0 }
  return { type: 'time', text: null, number: value.getTime() }
}

/** The value a stored row holds. Throws on a type tag this version does not know. */
export function fromTypedValue(
  type: string,
  text: string | null,
  number: number | null,
): SearchAttributeValue {
  switch (type) {
    case 'text':
      return text ?? ''
    case 'number':
      return number ?? 0
    case 'bool':
      return number === 1
    case 'time':
      return new Date(number ?? 0)
    default:
      throw new Error(`unknown search attribute type "${type}"`)
  }
}
