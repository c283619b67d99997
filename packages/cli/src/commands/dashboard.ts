/**
 * `cairn dashboard`: serves @cairn/dashboard's console and API over the store until Ctrl-C.
 * Fails closed: without a token it serves only on a loopback address (open to this machine,
 * as a development console), and refuses any other host.
 */
import { defaultLogger } from '@cairn/core'
import type { Dashboard } from '@cairn/dashboard'
import type { Command, Io, ParsedArgs } from '../command.ts'
import { isLoopbackHost } from '../loopback.ts'
import { STORE_HELP, STORE_OPTION, storeUrlOf, withEngine } from '../open_engine.ts'
import { integerOf } from '../options.ts'
import { redactUrl } from '../store/redact.ts'
import { UsageError } from '../usage_error.ts'

export const dashboardCommand: Command = {
  name: 'dashboard',
  summary: 'serve the dashboard (console and JSON API) over a store',
  help: `Usage: cairn dashboard [options]

Serve the dashboard over a store until Ctrl-C. The engine it opens never executes runs:
retried runs are picked up by your application's engines.

Options:
${STORE_HELP}
  --port <n>        port to listen on (default 4000; 0 picks a free one)
  --host <h>        address to listen on (default 127.0.0.1)
  --token <t>       the token that signs in (default: $CAIRN_DASHBOARD_TOKEN; prefer the
                    variable, a --token is visible in the process list)
  --read-only       refuse every action (retry, cancel, signal, …)
  --base-path <p>   serve under this path (default /)
  -h, --help        this help

Without a token the dashboard is open to anyone who can reach it, so it only listens on a
loopback host (127.0.0.1, ::1, localhost); any other --host needs a token.`,
  options: {
    ...STORE_OPTION,
    port: { type: 'string' },
    host: { type: 'string' },
    token: { type: 'string' },
    'read-only': { type: 'boolean' },
    'base-path': { type: 'string' },
  },
  positionals: [],
  async run(args, io) {
    const settings = settingsOf(args, io)
    // Loaded here: the other commands need neither the HTTP server nor the console.
    const { createDashboard } = await import('@cairn/dashboard')
    const storeUrl = storeUrlOf(args, io)
    const role = { name: 'cairn-dashboard', logger: defaultLogger }
    return withEngine(
      args,
      io,
      async (engine) => {
        const dashboard = createDashboard({
          engine,
          basePath: settings.basePath,
          readOnly: settings.readOnly,
          // No token: only reachable from this machine (checked above), a development console.
          ...(settings.token === undefined
            ? { development: true }
            : { auth: { tokens: [settings.token] }, development: false }),
        })
        try {
          await serveUntilStopped(dashboard, settings, io, redactUrl(storeUrl))
        } finally {
          await dashboard.close()
        }
        return 0
      },
      role,
    )
  },
}

async function serveUntilStopped(
  dashboard: Dashboard,
  settings: DashboardSettings,
  io: Io,
  shownStore: string,
): Promise<void> {
  const { serveDashboard } = await import('@cairn/dashboard')
  const server = await serveDashboard(dashboard, { port: settings.port, host: settings.host })
  if (settings.token === undefined)
    io.err(
      'No token given: the dashboard is open to every user of this machine. Pass --token <t> or set CAIRN_DASHBOARD_TOKEN to require one.',
    )
  io.out(`Cairn dashboard on ${server.url}${settings.basePath} (store ${shownStore})`)
  await io.waitForStop()
  await server.close() // ends the dashboard's streams too
}

interface DashboardSettings {
  port: number
  host: string
  token: string | undefined
  readOnly: boolean
  basePath: string
}

function settingsOf(args: ParsedArgs, io: Io): DashboardSettings {
  const { values } = args
  // `[::1]` as written in a URL is the address `::1` to listen on.
  const host = unbracketed((values.host as string | undefined) ?? '127.0.0.1')
  // An empty variable counts as unset (`CAIRN_DASHBOARD_TOKEN= cairn dashboard`).
  const token = (values.token as string | undefined) ?? (io.env.CAIRN_DASHBOARD_TOKEN || undefined)
  const basePath = (values['base-path'] as string | undefined) ?? '/'
  if (!basePath.startsWith('/')) throw new UsageError(`--base-path ${basePath}: must start with /`)
  if (token === '') throw new UsageError('--token: empty token')
  if (token === undefined && !isLoopbackHost(host))
    throw new UsageError(
      `refusing to serve on ${host} without a token: anyone who can reach it could act on your runs. Pass --token <t> or set CAIRN_DASHBOARD_TOKEN (or listen on 127.0.0.1).`,
    )
  return {
    port: integerOf('port', values.port as string | undefined, {
      min: 0,
      max: 65535,
      fallback: 4000,
    }),
    host,
    token,
    readOnly: values['read-only'] === true,
    basePath,
  }
}

function unbracketed(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}
