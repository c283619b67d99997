/**
 * Names that must never become keys of an ordinary object built from outside data: assigning
 * `obj['__proto__'] = v` swaps the object's prototype (or, reached through a shared prototype,
 * pollutes `Object.prototype` for the whole process), and `constructor` / `prototype` shadow
 * what code expects there. Where such names would be keys (search attribute names, filter
 * names), they are refused by name; where data may legitimately carry them (payloads), objects
 * are built with own-property definitions or without a prototype instead.
 */
export const RESERVED_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

export function isReservedKey(key: string): boolean {
  return RESERVED_KEYS.has(key)
}

/** An empty object with no prototype: any string is a plain key of it, `__proto__` included. */
export function emptyRecord<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>
}
