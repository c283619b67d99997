/**
 * Serving a dashboard from plain Node: `toNodeListener(dashboard)` is a node:http request
 * listener (mount it in any http server); `serveDashboard(dashboard, { port, host })` starts a
 * server of its own, on loopback unless told otherwise.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { InvalidArgumentError } from '@cairn/core'
import { checkInteger } from '@cairn/core/store-kit'
import { getRequestListener } from '@hono/node-server'
import type { Dashboard } from '../dashboard.ts'
import { badRequest } from './http_error.ts'
import { errorResponse } from './responses.ts'
import { withSecurityHeaders } from './security_headers.ts'

export type NodeListener = (request: IncomingMessage, response: ServerResponse) => void

export function toNodeListener(dashboard: Pick<Dashboard, 'fetch'>): NodeListener {
  const listener = getRequestListener(
    (request, env) =>
      isTidyPath(env.incoming.url ?? '/') ? dashboard.fetch(request) : refuseUntidyPath(),
    // The adapter would otherwise replace the process's global Request and Response with its
    // own classes: not a library's call to make in an app's process.
    { overrideGlobalObjects: false },
  )
  return (request, response) => void listener(request, response)
}

/**
 * URL parsing resolves `.`/`..` segments and turns `\` into `/` before the dashboard sees a
 * path, so a raw path that needed either (a traversal attempt, always) is refused here.
 */
function isTidyPath(rawUrl: string): boolean {
  const path = (rawUrl.split('?')[0] as string).toLowerCase()
  return !/\\|%5c|(^|\/)(\.|%2e){1,2}(\/|%2f|$)/.test(path)
}

function refuseUntidyPath(): Response {
  return withSecurityHeaders(errorResponse(badRequest('path with dot segments or backslashes')))
}

export interface ServedDashboard {
  /** e.g. `http://127.0.0.1:4000` (no base path). */
  url: string
  /** Stop the server and end the dashboard's streams. */
  close(): Promise<void>
}

export async function serveDashboard(
  dashboard: Dashboard,
  options: { port?: number; host?: string } = {},
): Promise<ServedDashboard> {
  const host = options.host === undefined ? '127.0.0.1' : options.host
  if (typeof host !== 'string' || host === '')
    throw new InvalidArgumentError('serveDashboard: host must be a host name or an address')
  // Node would take '4000' and refuse NaN with its own RangeError: one rule, one error.
  const port = checkInteger(options.port === undefined ? 0 : options.port, 'serveDashboard: port', {
    min: 0,
    max: 65_535,
  })
  const server = createServer(toNodeListener(dashboard))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  const { port: bound } = server.address() as AddressInfo
  const shown = host.includes(':') ? `[${host}]` : host
  return {
    url: `http://${shown}:${bound}`,
    close: async () => {
      await dashboard.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
