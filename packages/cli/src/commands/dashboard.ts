/**
 * `cairn dashboard`: serves @cairn/dashboard's console and API over the store until Ctrl-C.
 * Fails closed: without a token of the user's, it makes one for the session and prints it in
 * the address to open (other users and programs of the machine cannot get in), and serves
 * only on a loopback address; `--open` drops the token (a development console, loopback only).
 */
import { randomBytes } from 'node:crypto'
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
  --open            no token at all: open to every user and program of this machine
  --read-only       refuse every action (retry, cancel, signal, …)
  --base-path <p>   serve under this path (default /)
  -h, --help        this help

With neither, a token is made for this session and printed in the address to open (the
console signs in with it and drops it from the address bar), as Jupyter does. --open serves
without any, so only on a loopback host (127.0.0.1, ::1, localhost); any other --host needs
--token or $CAIRN_DASHBOARD_TOKEN.`,
  options: {
    ...STORE_OPTION,
    port: { type: 'string' },
    host: { type: 'string' },
    token: { type: 'string' },
    open: { type: 'boolean' },
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
          // --open: only reachable from this machine (checked above), a development console.
          ...(settings.token === null
            ? { development: true }
            : { auth: { tokens: [settings.token.value] }, development: false }),
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
  if (settings.token === null)
    io.err(
      '--open: the dashboard is open to every user and program of this machine, without a token.',
    )
  io.out(`Cairn dashboard on ${addressOf(server.url, settings)} (store ${shownStore})`)
  await io.waitForStop()
  await server.close() // ends the dashboard's streams too
}

interface DashboardSettings {
  port: number
  host: string
  /** null: --open. `made`: generated for this session, handed over in the printed address. */
  token: { value: string; made: boolean } | null
  readOnly: boolean
  basePath: string
}

/** The address to open; with a made token in it, since nobody else knows that token. */
function addressOf(serverUrl: string, settings: DashboardSettings): string {
  const base = `${serverUrl}${settings.basePath}`
  const made = settings.token?.made === true ? settings.token.value : null
  return made === null ? base : `${base}?token=${made}`
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
  const open = values.open === true
  if (open && token !== undefined)
    throw new UsageError('--open serves without a token: drop --token or CAIRN_DASHBOARD_TOKEN')
  if (token === undefined && !isLoopbackHost(host))
    throw new UsageError(
      `refusing to serve on ${host} without a token you chose: pass --token <t> or set CAIRN_DASHBOARD_TOKEN (or listen on 127.0.0.1).`,
    )
  return {
    port: integerOf('port', values.port as string | undefined, {
      min: 0,
      max: 65535,
      fallback: 4000,
    }),
    host,
    token: open ? null : token === undefined ? madeToken() : { value: token, made: false },
    readOnly: values['read-only'] === true,
    basePath,
  }
}

/** 192 random bits, URL-safe: printed in the address, never stored. */
function madeToken(): { value: string; made: true } {
  return { value: randomBytes(24).toString('base64url'), made: true }
}

function unbracketed(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
}
