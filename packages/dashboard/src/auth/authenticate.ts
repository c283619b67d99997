/**
 * Who a request comes from. A bearer token (API clients), a logged-in console session, the
 * app's `authorize(request)`, or nobody in particular when development mode leaves the
 * dashboard open. Null: not authenticated (401). A bearer header that does not match is
 * refused outright, never retried as a cookie: the client meant to use it.
 */
import type { ResolvedOptions } from '../options.ts'
import {
  SESSION_COOKIE,
  decodeSession,
  readCookie,
  sessionTokenValid,
  type Session,
} from './session_cookie.ts'
import { equalStrings } from './signing.ts'

export type Principal =
  /** `token`: which of the configured tokens (its index), to tell clients apart. */
  | { kind: 'bearer'; token: number }
  /** Logged in through the console (a cookie: ambient, so CSRF applies). */
  | { kind: 'session'; session: Session }
  /** Let in by the app's authorize(request) (its own cookies: ambient). */
  | { kind: 'authorize'; session: Session | null }
  /** Development mode without auth. */
  | { kind: 'open'; session: Session | null }

export async function authenticate(
  request: Request,
  options: ResolvedOptions,
): Promise<Principal | null> {
  const bearer = bearerOf(request)
  if (bearer !== null && options.tokens.length > 0) {
    const token = options.tokens.findIndex((t) => equalStrings(t, bearer))
    return token < 0 ? null : { kind: 'bearer', token }
  }
  const session = sessionOf(request, options.secret)
  if (session !== null && sessionTokenValid(options.secret, session, options.tokens))
    return { kind: 'session', session }
  if (options.authorize !== undefined && (await authorizes(request, options)))
    return { kind: 'authorize', session }
  if (options.mode === 'open') return { kind: 'open', session }
  return null
}

/** The cookie's session (logged in or anonymous), or null when absent, forged or expired. */
export function sessionOf(request: Request, secret: string): Session | null {
  const value = readCookie(request, SESSION_COOKIE)
  return value === null ? null : decodeSession(secret, value)
}

function bearerOf(request: Request): string | null {
  const header = request.headers.get('authorization')
  if (header === null) return null
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header)
  return match === null ? '' : (match[1] as string)
}

// Fail closed: an authorize hook that throws lets nobody in. Only the error's name is logged
// (its message may quote the request).
async function authorizes(request: Request, options: ResolvedOptions): Promise<boolean> {
  try {
    return (await options.authorize?.(request)) === true
  } catch (error) {
    options.logger.warn(
      { errorName: error instanceof Error ? error.name : typeof error },
      'cairn dashboard: auth.authorize threw; request refused',
    )
    return false
  }
}
