/**
 * The console's login: `GET api/session` (who am I, the auth mode, my CSRF token),
 * `POST api/session` `{ token }` (log in: a new signed session cookie), `DELETE api/session`
 * (log out). Public routes: they are how a browser gets in.
 */
import type { Hono } from 'hono'
import type { ResolvedOptions } from '../options.ts'
import type { AppEnv } from '../http/app_env.ts'
import { badRequest, unauthorized } from '../http/http_error.ts'
import { readJsonObject } from '../http/body.ts'
import { jsonResponse } from '../http/responses.ts'
import { authenticate, sessionOf } from './authenticate.ts'
import { checkCsrfToken, checkSameOrigin } from './csrf.ts'
import {
  csrfTokenOf,
  encodeSession,
  newSession,
  sessionCookieHeader,
  type Session,
} from './session_cookie.ts'
import { equalStrings } from './signing.ts'

export function mountSessionRoutes(app: Hono<AppEnv>, options: ResolvedOptions): void {
  const { secret } = options

  app.get('/api/session', async (c) => {
    const principal = await authenticate(c.req.raw, options)
    const existing = sessionOf(c.req.raw, secret)
    // An anonymous session binds the CSRF token of cookie-less principals (open, authorize).
    const session = existing ?? newSession(secret, null, options.sessionTtlMs)
    const headers: Record<string, string> =
      existing === null ? { 'set-cookie': cookieFor(c.req.raw, options, session) } : {}
    return jsonResponse(
      {
        authenticated: principal !== null,
        mode: options.mode === 'closed' ? 'token' : options.mode,
        configured: options.mode !== 'closed',
        readOnly: options.readOnly,
        csrfToken: csrfTokenOf(secret, session),
      },
      200,
      headers,
    )
  })

  app.post('/api/session', async (c) => {
    checkSameOrigin(c.req.raw)
    const { token } = await readJsonObject(c.req.raw)
    if (typeof token !== 'string' || token.length > 1024) throw badRequest('token must be a string')
    if (!options.tokens.some((t) => equalStrings(t, token))) throw unauthorized()
    // A fresh session id on every login: a session id planted before login is worth nothing.
    const session = newSession(secret, token, options.sessionTtlMs)
    return jsonResponse(
      { ok: true, authenticated: true, csrfToken: csrfTokenOf(secret, session) },
      200,
      { 'set-cookie': cookieFor(c.req.raw, options, session) },
    )
  })

  app.delete('/api/session', (c) => {
    checkSameOrigin(c.req.raw)
    const session = sessionOf(c.req.raw, secret)
    if (session !== null) checkCsrfToken(c.req.raw, secret, session)
    const cleared = sessionCookieHeader('', {
      path: cookiePath(options),
      secure: secureFor(c.req.raw, options),
      maxAgeSeconds: 0,
    })
    return jsonResponse({ ok: true }, 200, { 'set-cookie': cleared })
  })
}

function cookieFor(request: Request, options: ResolvedOptions, session: Session): string {
  return sessionCookieHeader(encodeSession(options.secret, session), {
    path: cookiePath(options),
    secure: secureFor(request, options),
    // Rounded up: a lifetime under a second must not become Max-Age=0 (a cookie deleted at once).
    maxAgeSeconds: Math.ceil(options.sessionTtlMs / 1000),
  })
}

/** One rule for setting and clearing the cookie: a browser keeps them apart otherwise. */
function secureFor(request: Request, options: ResolvedOptions): boolean {
  return options.secureCookies ?? isHttps(request)
}

function cookiePath(options: ResolvedOptions): string {
  return options.basePath
}

function isHttps(request: Request): boolean {
  return new URL(request.url).protocol === 'https:'
}
