/**
 * `createDashboard(options)`: the whole dashboard (JSON API, live streams, console files,
 * login) as one fetch handler, `(request: Request) => Promise<Response>`, mountable under any
 * base path in any runtime that speaks fetch. http/node_adapter.ts serves it from node:http.
 */
import { Hono } from 'hono'
import { mountAssets } from './assets/asset_routes.ts'
import { mountSessionRoutes } from './auth/session_routes.ts'
import { mountReadRoutes } from './api/read_routes.ts'
import { mountPublishedStateRoute } from './api/published_state_route.ts'
import { mountActionRoutes } from './api/action_routes.ts'
import { mountLineageRoutes } from './api/lineage_routes.ts'
import { mountBulkRoutes } from './api/bulk_routes.ts'
import { mountScheduleRoutes } from './api/schedule_routes.ts'
import { mountStreamRoutes } from './stream/stream_routes.ts'
import { StreamRegistry } from './stream/stream_registry.ts'
import { mountMetrics } from './http/metrics_route.ts'
import { accessControl } from './http/access_control.ts'
import { openModeHostError } from './http/open_mode_host.ts'
import type { AppEnv } from './http/app_env.ts'
import { respondToError } from './http/error_handler.ts'
import { notFound } from './http/http_error.ts'
import { errorResponse } from './http/responses.ts'
import { withSecurityHeaders } from './http/security_headers.ts'
import { resolveOptions, type DashboardOptions, type ResolvedOptions } from './options.ts'

export interface Dashboard {
  /** Answer one request; requests outside the base path answer 404. */
  fetch(request: Request): Promise<Response>
  /** End every live stream. The engine stays open: it is the app's. */
  close(): Promise<void>
}

export function createDashboard(options: DashboardOptions): Dashboard {
  const resolved = resolveOptions(options)
  const streams = new StreamRegistry()
  const { app, releaseMetrics } = buildApp(resolved, streams)
  return {
    fetch: async (request) => withSecurityHeaders(await answer(app, resolved, request)),
    close: async () => {
      streams.closeAll()
      releaseMetrics()
    },
  }
}

function buildApp(options: ResolvedOptions, streams: StreamRegistry) {
  const root = new Hono<AppEnv>({ strict: false })
  const app = options.basePath === '/' ? root : root.basePath(options.basePath)
  app.use('*', accessControl(options))
  mountSessionRoutes(app, options)
  mountReadRoutes(app, options)
  mountPublishedStateRoute(app, options.engine)
  mountActionRoutes(app, options.engine)
  mountLineageRoutes(app, options.engine)
  mountBulkRoutes(app, options)
  mountScheduleRoutes(app, options.engine)
  mountStreamRoutes(app, options, streams)
  const releaseMetrics = mountMetrics(app, options.engine, options.metrics)
  mountAssets(app, options.consoleDir)
  root.notFound(() => errorResponse(notFound()))
  root.onError((error, c) =>
    respondToError(error, options.logger, { method: c.req.method, route: c.req.routePath }),
  )
  return { app: root, releaseMetrics }
}

async function answer(app: Hono<AppEnv>, options: ResolvedOptions, request: Request) {
  const misdirected = options.mode === 'open' ? openModeHostError(request) : null
  if (misdirected !== null) return errorResponse(misdirected)
  const path = new URL(request.url).pathname
  // `/base` → `/base/`: the console's relative links resolve against the trailing slash.
  if (options.basePath !== '/' && path === options.basePath && request.method === 'GET')
    return new Response(null, { status: 308, headers: { location: `${options.basePath}/` } })
  return app.fetch(request)
}
