/**
 * Payloads (inputs, outputs, errors, signal payloads) as JSON values. The engine's codec
 * decodes them into JavaScript values that JSON cannot all hold; the rendering is:
 * Date → ISO-8601 string (invalid Date → null); bigint → decimal string; Map → array of
 * [key, value] pairs; Set → array; binary (Buffer, typed arrays, ArrayBuffer) → base64
 * string; RegExp → its `/source/flags` text; Error → { name, message, code? };
 * NaN, ±Infinity and undefined → null (in objects, an undefined property is left out).
 */

const MAX_DEPTH = 64

export function toJsonValue(value: unknown, depth = 0): unknown {
  if (depth > MAX_DEPTH) return '[nested too deep]'
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value
    case 'number':
      return Number.isFinite(value) ? value : null
    case 'bigint':
      return value.toString()
    case 'object':
      return value === null ? null : objectToJson(value, depth)
    default:
      return null
  }
}

function objectToJson(value: object, depth: number): unknown {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString()
  if (Array.isArray(value)) return value.map((v) => toJsonValue(v, depth + 1))
  if (value instanceof Map)
    return [...value].map(([k, v]) => [toJsonValue(k, depth + 1), toJsonValue(v, depth + 1)])
  if (value instanceof Set) return [...value].map((v) => toJsonValue(v, depth + 1))
  if (ArrayBuffer.isView(value))
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64')
  if (value instanceof ArrayBuffer) return Buffer.from(value).toString('base64')
  if (value instanceof RegExp) return String(value)
  if (value instanceof Error) return errorToJson(value)
  // Defined, not assigned: a payload's own `__proto__` key is data, shown like any other.
  const out: Record<string, unknown> = {}
  for (const [key, entry] of Object.entries(value))
    if (entry !== undefined)
      Object.defineProperty(out, key, {
        value: toJsonValue(entry, depth + 1),
        enumerable: true,
        writable: true,
        configurable: true,
      })
  return out
}

function errorToJson(error: Error): unknown {
  const code = (error as { code?: unknown }).code
  return typeof code === 'string'
    ? { name: error.name, message: error.message, code }
    : { name: error.name, message: error.message }
}
