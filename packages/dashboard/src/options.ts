/**
 * What `createDashboard` takes, and the resolved form the handler works with.
 */
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import type { Engine, Logger } from '@cairn/core'
import { InvalidArgumentError } from '@cairn/core'
import { checkInteger, MAX_TIME_MS, NUMBER_RANGES } from '@cairn/core/store-kit'
import type { MetricsExposition } from './http/metrics_route.ts'

export interface DashboardAuth {
  /** Bearer tokens API clients send (`Authorization: Bearer <token>`); the console logs in with one. */
  tokens?: string[]
  /**
   * The app's own check (its session, its roles): true lets the request in. Called for every
   * request that carries no valid token or dashboard session; a throw counts as false.
   */
  authorize?: (request: Request) => boolean | Promise<boolean>
}

export interface DashboardStreamOptions {
  /** Comment sent on idle streams so proxies keep them open. Default 15 000 ms. */
  keepAliveMs?: number
  /** How often a one-run stream re-reads the run (changes made by other processes). Default 1 000 ms. */
  runPollMs?: number
  /** How often a run-list stream re-reads its first page. Default 2 000 ms. */
  listPollMs?: number
}

export interface DashboardOptions {
  engine: Engine
  /** Where the dashboard lives, e.g. `/admin/cairn`. Default `/`. */
  basePath?: string
  auth?: DashboardAuth
  /**
   * With no auth configured: open to anyone when true; every API route answers 401 when false.
   * Default: `process.env.NODE_ENV === 'development'`.
   */
  development?: boolean
  /** HMAC key for session cookies and list cursors (≥ 32 characters). Default: random per process. */
  secret?: string
  /** Most runs one bulk action touches: an integer from 1 to 10 000. Default 1000. */
  bulkLimit?: number
  /** Every action answers 403 E_FORBIDDEN: a dashboard for looking only. */
  readOnly?: boolean
  /** Where to log server errors; default the engine's logger. Payloads are never logged. */
  logger?: Logger
  /** The console's files. Default: this package's `console/` directory. */
  consoleDir?: string
  stream?: DashboardStreamOptions
  /** How long a console login lasts. Default 12 hours. */
  sessionTtlMs?: number
  /**
   * Mark the session cookie `Secure` always (true) or never (false). Default: when the request
   * URL is https — set true behind a TLS-terminating proxy, where the URL the dashboard sees is
   * http but browsers talk https.
   */
  secureCookies?: boolean
  /**
   * Serve `GET <base>/metrics` (same auth as the API): `true` makes the engine's metrics
   * (`createMetrics(engine)`, closed with the dashboard); a `Metrics` object (or anything with
   * its `contentType` and `render()`) is served as is.
   */
  metrics?: boolean | MetricsExposition
}

export type AuthMode = 'open' | 'token' | 'authorize' | 'closed'

export interface ResolvedOptions {
  engine: Engine
  basePath: string
  tokens: readonly string[]
  authorize: DashboardAuth['authorize'] | undefined
  mode: AuthMode
  secret: string
  bulkLimit: number
  readOnly: boolean
  logger: Logger
  consoleDir: string
  keepAliveMs: number
  runPollMs: number
  listPollMs: number
  sessionTtlMs: number
  secureCookies: boolean | undefined
  metrics: boolean | MetricsExposition | undefined
}

const MAX_BULK_LIMIT = 10_000
const DEFAULT_CONSOLE_DIR = fileURLToPath(new URL('../console/', import.meta.url))

export function resolveOptions(options: DashboardOptions): ResolvedOptions {
  const tokens = checkTokens(options.auth?.tokens ?? [])
  const authorize = options.auth?.authorize
  const development = options.development ?? process.env.NODE_ENV === 'development'
  return {
    engine: options.engine,
    basePath: normalizeBasePath(options.basePath ?? '/'),
    tokens,
    authorize,
    mode: authModeOf(tokens.length > 0, authorize !== undefined, development),
    secret: checkSecret(options.secret),
    bulkLimit: checkInteger(given(options.bulkLimit, 1000), 'dashboard bulkLimit', {
      min: 1,
      max: MAX_BULK_LIMIT,
    }),
    readOnly: options.readOnly === true,
    logger: options.logger ?? options.engine.options.logger,
    consoleDir: options.consoleDir ?? DEFAULT_CONSOLE_DIR,
    keepAliveMs: streamPeriod(options.stream, 'keepAliveMs', 15_000),
    runPollMs: streamPeriod(options.stream, 'runPollMs', 1_000),
    listPollMs: streamPeriod(options.stream, 'listPollMs', 2_000),
    // A login's end (now + ttl) must be a time a Date can hold.
    sessionTtlMs: checkInteger(
      given(options.sessionTtlMs, 12 * 3_600_000),
      'dashboard sessionTtlMs',
      {
        min: 1,
        max: MAX_TIME_MS / 2,
      },
    ),
    secureCookies: checkOptionalBoolean(options.secureCookies, 'secureCookies'),
    metrics: options.metrics,
  }
}

/** `closed`: nothing configured outside development, so nothing but the login page is served. */
function authModeOf(tokens: boolean, authorize: boolean, development: boolean): AuthMode {
  if (tokens) return 'token'
  if (authorize) return 'authorize'
  return development ? 'open' : 'closed'
}

/** `/`, or a path starting with `/` without a trailing one: `/admin/cairn`. */
export function normalizeBasePath(basePath: string): string {
  if (typeof basePath !== 'string' || !basePath.startsWith('/') || /[?#\\%]/.test(basePath))
    throw new InvalidArgumentError(`dashboard basePath must be a path starting with "/"`)
  const trimmed = basePath.replace(/\/+$/, '')
  return trimmed === '' ? '/' : trimmed
}

function checkTokens(tokens: readonly string[]): string[] {
  for (const token of tokens)
    if (typeof token !== 'string' || token.length < 16)
      throw new InvalidArgumentError('dashboard auth tokens must be strings of 16+ characters')
  return [...tokens]
}

function checkOptionalBoolean(value: unknown, name: string): boolean | undefined {
  if (value !== undefined && typeof value !== 'boolean')
    throw new InvalidArgumentError(`dashboard ${name} must be true or false`)
  return value
}

/** The default only for an option left out: null is a value, and refused like any other. */
function given<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value
}

/** A stream timer's period: a NaN or 0 here would be a 1 ms timer, a hot loop per stream. */
function streamPeriod(
  stream: DashboardStreamOptions | undefined,
  name: keyof DashboardStreamOptions,
  fallback: number,
): number {
  if (
    stream !== undefined &&
    (stream === null || typeof stream !== 'object' || Array.isArray(stream))
  )
    throw new InvalidArgumentError('dashboard stream must be an object')
  return checkInteger(
    given(stream?.[name], fallback),
    `dashboard stream.${name}`,
    NUMBER_RANGES.periodMs,
  )
}

function checkSecret(secret: string | undefined): string {
  if (secret === undefined) return randomBytes(32).toString('base64url')
  if (typeof secret !== 'string' || secret.length < 32)
    throw new InvalidArgumentError('dashboard secret must be a string of 32+ characters')
  return secret
}

export function clampInt(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, Math.trunc(value)))
}
