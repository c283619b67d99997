/**
 * The console's session: a signed, expiring cookie holding a random session id, and whether
 * the session logged in (and with which token, by its HMAC, so removing a token from the
 * configuration ends its sessions). Nothing is kept server-side. An anonymous session (not
 * logged in) exists only to bind the CSRF token in open and `authorize` modes.
 */
import { randomBytes } from 'node:crypto'
import { equalStrings, mac, sign, unsign } from './signing.ts'

export const SESSION_COOKIE = 'cairn_session'

export interface Session {
  id: string
  /** HMAC of the token that logged in, or null for an anonymous session. */
  token: string | null
  expiresAt: number
}

export function newSession(secret: string, token: string | null, ttlMs: number): Session {
  return {
    id: randomBytes(18).toString('base64url'),
    token: token === null ? null : mac(secret, 'token', token),
    expiresAt: Date.now() + ttlMs,
  }
}

export function encodeSession(secret: string, session: Session): string {
  return sign(secret, 'session', [session.id, session.token, session.expiresAt])
}

/** The session a cookie value carries, or null when it is forged, altered or expired. */
export function decodeSession(secret: string, value: string): Session | null {
  const payload = unsign(secret, 'session', value)
  if (!Array.isArray(payload) || payload.length !== 3) return null
  const [id, token, expiresAt] = payload as unknown[]
  if (typeof id !== 'string' || (token !== null && typeof token !== 'string')) return null
  if (typeof expiresAt !== 'number' || expiresAt <= Date.now()) return null
  return { id, token, expiresAt }
}

/** Whether a logged-in session's token is still one of the configured tokens. */
export function sessionTokenValid(
  secret: string,
  session: Session,
  tokens: readonly string[],
): boolean {
  const held = session.token
  return held !== null && tokens.some((t) => equalStrings(mac(secret, 'token', t), held))
}

/** The session's CSRF token: the header `x-cairn-csrf` must carry it on every state change. */
export function csrfTokenOf(secret: string, session: Session): string {
  return mac(secret, 'csrf', session.id)
}

export function sessionCookieHeader(
  value: string,
  options: { path: string; secure: boolean; maxAgeSeconds: number },
): string {
  const parts = [
    `${SESSION_COOKIE}=${value}`,
    `Path=${options.path}`,
    `Max-Age=${options.maxAgeSeconds}`,
    'HttpOnly',
    'SameSite=Strict',
  ]
  if (options.secure) parts.push('Secure')
  return parts.join('; ')
}

export function readCookie(request: Request, name: string): string | null {
  const header = request.headers.get('cookie')
  if (header === null) return null
  for (const part of header.split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return null
}
