/**
 * JSON responses. Every API body is JSON with `application/json; charset=utf-8` and `no-store`:
 * nothing the API returns is ever interpreted as HTML, and run data is never cached.
 */
import type { HttpError } from './http_error.ts'

const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
}

export function jsonResponse(
  body: unknown,
  status = 200,
  headers: Record<string, string> = {},
): Response {
  const merged = new Headers(headers)
  for (const [name, value] of Object.entries(JSON_HEADERS)) merged.set(name, value)
  return new Response(safeJson(body), { status, headers: merged })
}

export function errorResponse(error: HttpError): Response {
  return jsonResponse({ error: { code: error.code, message: error.message } }, error.status)
}

/**
 * JSON text with `<`, `>` and `&` escaped as \u escapes: the same JSON value, but a body a
 * confused browser or proxy sniffs as HTML still contains no markup. `indent` pretty-prints
 * (a file meant for people and diffs).
 */
export function safeJson(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(
    /[<>&\u2028\u2029]/g,
    (c) => UNICODE_ESCAPES[c] as string,
  )
}

const UNICODE_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
}
