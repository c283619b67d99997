/**
 * Search attributes: small typed values a run sets on itself (`ctx.upsertSearchAttributes`) so
 * operators can find it (`listRuns({ searchAttributes: … })`). Types only.
 *
 * A value has one of four types, decided by its JavaScript type: text (string), number
 * (finite), bool (boolean) and time (Date, kept as integer milliseconds). Every store keeps
 * the type with the value, and a filter matches only values of its own type: `{ amount: 100 }`
 * never matches an attribute stored as the string `'100'`.
 */

/** A stored attribute value. */
export type SearchAttributeValue = string | number | boolean | Date

/** The attributes of one run, by name. */
export type SearchAttributes = Record<string, SearchAttributeValue>

/** What one upsert writes: a value sets (or replaces) the attribute, null removes it. */
export type SearchAttributeUpsert = Record<string, SearchAttributeValue | null>

/** Comparison operators of a filter. */
export type SearchAttributeOperator = 'eq' | 'ne' | 'gt' | 'gte' | 'lt' | 'lte'

/**
 * Conditions on one attribute, ANDed: `{ gte: 10, lt: 20 }` is a range. Each matches only a
 * run that HAS the attribute with a value of the operand's type:
 * - `eq`/`gt`/`gte`/`lt`/`lte` compare values of one type (text by code point, bool false < true,
 *   time by instant);
 * - `ne` matches a run whose attribute of that type differs: a run without the attribute (or
 *   with a value of another type) does not match `ne` either.
 */
export type SearchAttributeCondition = Partial<
  Record<SearchAttributeOperator, SearchAttributeValue>
>

/**
 * A listRuns filter: attribute name → a value (shorthand for `{ eq: value }`) or conditions.
 * Every entry must hold (AND).
 */
export type SearchAttributeFilter = Record<string, SearchAttributeValue | SearchAttributeCondition>
