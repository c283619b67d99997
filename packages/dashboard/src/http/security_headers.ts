/**
 * Headers every dashboard response carries, whatever route or error produced it: a strict
 * Content-Security-Policy (only this origin's scripts, styles and connections; no inline
 * script, no framing, no plugins), no MIME sniffing, no referrer. API responses add
 * `Cache-Control: no-store` themselves (http/responses.ts).
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ')

const SECURITY_HEADERS: ReadonlyArray<[string, string]> = [
  ['content-security-policy', CONTENT_SECURITY_POLICY],
  ['x-content-type-options', 'nosniff'],
  ['referrer-policy', 'no-referrer'],
  ['x-frame-options', 'DENY'],
  ['cross-origin-opener-policy', 'same-origin'],
  ['cross-origin-resource-policy', 'same-origin'],
]

/** The response with the security headers set (a copy: some responses have immutable headers). */
export function withSecurityHeaders(response: Response): Response {
  const headers = new Headers(response.headers)
  for (const [name, value] of SECURITY_HEADERS) headers.set(name, value)
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  })
}
