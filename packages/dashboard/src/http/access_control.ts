/**
 * The gate in front of every route but the public ones (the console page, its assets, the
 * session routes): authenticate (401), then for state changes CSRF (403 E_CSRF) and
 * read-only mode (403 E_FORBIDDEN). Fail closed: with no auth configured outside
 * development, no request authenticates.
 */
import type { MiddlewareHandler } from 'hono'
import type { ResolvedOptions } from '../options.ts'
import { authenticate } from '../auth/authenticate.ts'
import { checkCsrf, isStateChanging } from '../auth/csrf.ts'
import type { AppEnv } from './app_env.ts'
import { forbidden, unauthorized } from './http_error.ts'

/** Paths (relative to the base) anyone may fetch. */
export function isPublicPath(relativePath: string): boolean {
  return (
    relativePath === '/' ||
    relativePath === '' ||
    relativePath.startsWith('/assets/') ||
    relativePath === '/api/session'
  )
}

export function accessControl(options: ResolvedOptions): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (isPublicPath(relativePathOf(c.req.path, options.basePath))) return next()
    const principal = await authenticate(c.req.raw, options)
    if (principal === null) throw unauthorized()
    if (isStateChanging(c.req.method)) {
      checkCsrf(c.req.raw, options.secret, principal)
      if (options.readOnly) throw forbidden('this dashboard is read-only')
    }
    c.set('principal', principal)
    return next()
  }
}

export function relativePathOf(path: string, basePath: string): string {
  return basePath === '/' ? path : path.slice(basePath.length)
}
