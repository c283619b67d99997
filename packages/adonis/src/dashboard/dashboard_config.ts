/**
 * The `dashboard` section of config/durable.ts: whether the provider mounts the operations
 * dashboard (@cairn/dashboard) on the app's router, where, and who may use it.
 */
import type { HttpContext } from '@adonisjs/core/http'
import { invalidConfig } from '../errors.ts'

export interface DurableDashboardConfig {
  /** Mount the dashboard in the web server (and test processes). Default false. */
  enabled?: boolean
  /** Where it is mounted. Default `/durable`. */
  path?: string
  /**
   * Who may use it, decided by the app for each request (e.g. `ctx.auth`, a role check).
   * Return true to let the request through. Without it and without `tokens`, the dashboard is
   * open in development (`NODE_ENV=development`) and answers 401 everywhere else.
   */
  authorize?: (ctx: HttpContext) => boolean | Promise<boolean>
  /** Bearer tokens (16+ characters) accepted by the API and by the console's login page. */
  tokens?: string[]
  /** Every action answers 403: a dashboard for looking only. Default false. */
  readOnly?: boolean
  /** Serve Prometheus metrics at `<path>/metrics` (same access rules). Default false. */
  metrics?: boolean
  /**
   * Key for the console's session cookies and list cursors (32+ characters). Default: derived
   * from the app key, so sessions survive restarts and hold across instances.
   */
  secret?: string
}

export interface ResolvedDashboardConfig {
  enabled: boolean
  path: string
  authorize: DurableDashboardConfig['authorize']
  tokens: string[]
  readOnly: boolean
  metrics: boolean
  secret: string | undefined
}

const KNOWN = new Set(['enabled', 'path', 'authorize', 'tokens', 'readOnly', 'metrics', 'secret'])

export function validateDashboardConfig(value: unknown): ResolvedDashboardConfig {
  if (value === undefined) return resolved({})
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidConfig('dashboard', 'must be an object ({ enabled: true, … })')
  }
  const c = value as Record<string, unknown>
  for (const key of Object.keys(c)) {
    if (!KNOWN.has(key)) throw invalidConfig(`dashboard.${key}`, 'is not a known option')
  }
  for (const field of ['enabled', 'readOnly', 'metrics'] as const) {
    if (c[field] !== undefined && typeof c[field] !== 'boolean') {
      throw invalidConfig(
        `dashboard.${field}`,
        `must be true or false, got ${JSON.stringify(c[field])}`,
      )
    }
  }
  checkPath(c.path)
  if (c.authorize !== undefined && typeof c.authorize !== 'function') {
    throw invalidConfig('dashboard.authorize', 'must be a function (ctx) => boolean')
  }
  checkTokens(c.tokens)
  if (c.secret !== undefined && (typeof c.secret !== 'string' || c.secret.length < 32)) {
    throw invalidConfig('dashboard.secret', 'must be a string of 32+ characters')
  }
  return resolved(c as DurableDashboardConfig)
}

function resolved(c: DurableDashboardConfig): ResolvedDashboardConfig {
  return {
    enabled: c.enabled ?? false,
    path: normalizePath(c.path ?? '/durable'),
    authorize: c.authorize,
    tokens: c.tokens ?? [],
    readOnly: c.readOnly ?? false,
    metrics: c.metrics ?? false,
    secret: c.secret,
  }
}

function checkPath(path: unknown): void {
  if (path === undefined) return
  if (typeof path !== 'string' || !/^\/[A-Za-z0-9_\-/.]*$/.test(path) || path.includes('..')) {
    throw invalidConfig(
      'dashboard.path',
      `must be an absolute URL path such as "/durable", got ${JSON.stringify(path)}`,
    )
  }
  if (normalizePath(path) === '/') {
    throw invalidConfig('dashboard.path', 'must not be "/": the dashboard would shadow the app')
  }
}

function checkTokens(tokens: unknown): void {
  if (tokens === undefined) return
  if (!Array.isArray(tokens) || tokens.some((t) => typeof t !== 'string' || t.length < 16)) {
    throw invalidConfig('dashboard.tokens', 'must be an array of strings of 16+ characters')
  }
}

/** `/durable/` and `/durable` mount at the same place. */
function normalizePath(path: string): string {
  const trimmed = path.replace(/\/+$/, '')
  return trimmed === '' ? '/' : trimmed
}
