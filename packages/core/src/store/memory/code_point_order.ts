/**
 * Compare strings by Unicode code point, the order SQL stores get from UTF-8 bytes (SQLite
 * BINARY, Postgres "C"). JavaScript's `<` compares UTF-16 units, which puts U+E000..U+FFFF
 * after astral characters; remapping the unit at the first difference fixes that.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x !== y) return codePointRank(x) - codePointRank(y)
  }
  return a.length - b.length
}

/** Surrogates (astral characters) rank above U+E000..U+FFFF; the rest keep their value. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit
  return unit >= 0xe000 ? unit - 0x800 : unit + 0x2000
}
