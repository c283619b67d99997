/**
 * The hot-path check: is a value plain JSON that `JSON.stringify` writes and `JSON.parse`
 * reads back deep-equal? Strings, finite numbers other than -0, booleans, null, and arrays and
 * objects of those with Array / Object prototypes, no holes, no `$t` key and no extra or
 * symbol-keyed properties. Anything else answers false and takes the tagged path, which
 * either encodes it or says exactly why not. Never throws (unless a getter does), never
 * recurses past `maxDepth`, so cycles and absurd nesting just answer NOT_PLAIN.
 */

// Per-call state, kept in module variables because they are the cheapest to reach from the
// recursive walk. They only bound the work: a re-entrant call from a getter can at worst make
// this answer NOT_PLAIN, and the tagged path then decides correctly.
let depthLimit = 0
let valuesLeft = 0

/** What plainJsonValues answers for a value that is not plain JSON. */
export const NOT_PLAIN = -1

/**
 * The number of values inside `value` (its descendants) when it is plain JSON nested at most
 * `maxDepth` containers deep; NOT_PLAIN when it is not; or, as soon as the count passes
 * `maxValues`, that count (each value costs output bytes, so the caller knows the payload
 * is too large without writing it, even a shared subtree repeated 2^40 times).
 */
export function plainJsonValues(value: unknown, maxDepth: number, maxValues: number): number {
  depthLimit = maxDepth
  valuesLeft = maxValues
  const plain = isPlain(value, 0)
  return plain || valuesLeft < 0 ? maxValues - valuesLeft : NOT_PLAIN
}

/** `depth` is the number of containers around `v`. */
function isPlain(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true
    case 'number':
      // n - n is NaN for NaN and ±Infinity; 1 / -0 is -Infinity.
      return v - v === 0 && (v !== 0 || 1 / v > 0)
    case 'object':
      if (v === null) return true
      return Array.isArray(v) ? isPlainArray(v, depth) : isPlainObject(v, depth)
    default:
      return false
  }
}

function isPlainArray(a: unknown[], depth: number): boolean {
  if (depth >= depthLimit || Object.getPrototypeOf(a) !== Array.prototype) return false
  const n = a.length
  // A hole reads as undefined, which is not plain, so the loop also rejects sparse arrays
  // (and counts only elements that exist: `length` can be 2^32 - 1 with one element).
  for (let i = 0; i < n; i++) {
    if (!isPlain(a[i], depth + 1) || --valuesLeft < 0) return false
  }
  // JSON.stringify drops non-index and symbol-keyed properties of arrays: send those on.
  return Object.keys(a).length === n && Object.getOwnPropertySymbols(a).length === 0
}

function isPlainObject(o: object, depth: number): boolean {
  if (depth >= depthLimit || Object.getPrototypeOf(o) !== Object.prototype) return false
  const keys = Object.keys(o)
  if ((valuesLeft -= keys.length) < 0) return false
  for (const key of keys) {
    if (key === '$t' || !isPlain((o as Record<string, unknown>)[key], depth + 1)) return false
  }
  return Object.getOwnPropertySymbols(o).length === 0
}
