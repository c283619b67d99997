/**
 * Mounts the operations dashboard (@cairn/dashboard) on the app's router at the configured
 * path. Every request under the path goes to the dashboard's fetch handler; the app decides
 * access through `authorize(ctx)`, bearer `tokens`, or development mode (see
 * dashboard_config.ts). The dashboard's own CSRF, CSP and session rules apply unchanged.
 */
import { createHmac } from 'node:crypto'
import type { HttpContext } from '@adonisjs/core/http'
import type { ApplicationService } from '@adonisjs/core/types'
import type { Engine } from '@cairn/core'
import { createDashboard, type Dashboard, type DashboardAuth } from '@cairn/dashboard'
import type { ResolvedDashboardConfig } from './dashboard_config.ts'
import { sendFetchResponse, toFetchRequest } from './fetch_bridge.ts'

export async function mountDashboard(
  app: ApplicationService,
  engine: Engine,
  config: ResolvedDashboardConfig,
): Promise<Dashboard> {
  // The dashboard's authorize hook sees a fetch Request; the app's sees the HttpContext it
  // came from.
  const contexts = new WeakMap<Request, HttpContext>()
  const secret = config.secret ?? secretFromAppKey(app)
  const dashboard = createDashboard({
    engine,
    basePath: config.path,
    development: app.inDev,
    auth: authFor(config, contexts),
    readOnly: config.readOnly,
    metrics: config.metrics,
    ...(secret === undefined ? {} : { secret }),
  })
  const handle = async (ctx: HttpContext): Promise<void> => {
    const request = toFetchRequest(ctx)
    contexts.set(request, ctx)
    sendFetchResponse(ctx, await dashboard.fetch(request))
  }
  const router = await app.container.make('router')
  router.any(config.path, handle)
  router.any(`${config.path}/*`, handle)
  return dashboard
}

function authFor(
  config: ResolvedDashboardConfig,
  contexts: WeakMap<Request, HttpContext>,
): DashboardAuth {
  const authorize = config.authorize
  if (authorize === undefined) return { tokens: config.tokens }
  return {
    tokens: config.tokens,
    authorize: (request) => {
      const ctx = contexts.get(request)
      return ctx === undefined ? false : authorize(ctx)
    },
  }
}

/**
 * A key of its own derived from the app key (never the app key itself), so console sessions
 * survive restarts and hold on every instance that shares the app key.
 */
function secretFromAppKey(app: ApplicationService): string | undefined {
  const appKey: unknown = app.config.get('app.appKey', undefined)
  const key = typeof appKey === 'string' ? appKey : releaseSecret(appKey)
  if (key === undefined || key === '') return undefined
  return createHmac('sha256', key).update('cairn dashboard secret').digest('base64url')
}

function releaseSecret(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined
  const release = (value as { release?: unknown }).release
  return typeof release === 'function' ? String(release.call(value)) : undefined
}
