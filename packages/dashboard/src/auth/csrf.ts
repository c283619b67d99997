/**
 * CSRF defence for every state-changing request (POST, PUT, PATCH, DELETE):
 * 1. the browser's own signals: `Origin` (or, without it, `Referer`) must be this request's
 *    origin, and `Sec-Fetch-Site` must not be `cross-site`;
 * 2. a request authenticated by something a browser sends by itself (the session cookie,
 *    the app's cookies behind `authorize`, or nothing in open mode) must carry the header
 *    `x-cairn-csrf` equal to its session's CSRF token, which a cross-site page cannot read.
 * A bearer-token client is exempt from both: its credential is never sent by the browser on
 * its own.
 */
import type { Principal } from './authenticate.ts'
import { csrfRefused } from '../http/http_error.ts'
import { csrfTokenOf, type Session } from './session_cookie.ts'
import { equalStrings } from './signing.ts'

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])
export const CSRF_HEADER = 'x-cairn-csrf'

export function isStateChanging(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase())
}

/** Throws E_CSRF unless the request comes from this origin (checked for every principal but bearer). */
export function checkSameOrigin(request: Request): void {
  const own = new URL(request.url).origin
  const claimed = request.headers.get('origin') ?? refererOrigin(request)
  if (claimed !== null && claimed !== own)
    throw csrfRefused('cross-origin request refused (Origin does not match)')
  if (request.headers.get('sec-fetch-site') === 'cross-site')
    throw csrfRefused('cross-site request refused (Sec-Fetch-Site)')
}

/** Throws E_CSRF unless the request carries its session's CSRF token. */
export function checkCsrfToken(request: Request, secret: string, session: Session | null): void {
  const sent = request.headers.get(CSRF_HEADER)
  if (session === null || sent === null || !equalStrings(sent, csrfTokenOf(secret, session)))
    throw csrfRefused(`missing or wrong ${CSRF_HEADER} header (GET api/session gives the token)`)
}

export function checkCsrf(request: Request, secret: string, principal: Principal): void {
  if (principal.kind === 'bearer') return
  checkSameOrigin(request)
  checkCsrfToken(request, secret, principal.session)
}

function refererOrigin(request: Request): string | null {
  const referer = request.headers.get('referer')
  if (referer === null) return null
  try {
    return new URL(referer).origin
  } catch {
    return 'invalid'
  }
}
