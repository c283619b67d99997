/**
 * Dashboard test plumbing: an engine on a memory store with a few workflows, a dashboard in
 * front of it, and a client that speaks to the fetch handler like a browser or an API client.
 */
import { Engine, FatalError, MemoryStore, silentLogger, type Logger } from '@cairn/core'
import { createDashboard, type Dashboard, type DashboardOptions } from '@cairn/dashboard'

export const ORIGIN = 'http://dash.test'
/** Where an open (development, no auth) dashboard is reached: a loopback name. */
export const LOCAL_ORIGIN = 'http://localhost:4000'
export const TOKEN = 'test-token-0123456789abcdef'
export const SECRET = 'test-secret-0123456789abcdef-0123456789'

export interface Fixture {
  engine: Engine
  dashboard: Dashboard
  close(): Promise<void>
}

/** Registers `greet` (one step), `fail` (a step that throws), `wait` (waits for a signal). */
export function registerWorkflows(engine: Engine): void {
  engine.register('greet', 1, async (ctx, name: string) =>
    ctx.localStep('hello', () => `hi ${name}`),
  )
  engine.register('fail', 1, async (ctx, _input: unknown) =>
    ctx.localStep('boom', (): string => {
      throw new FatalError('step failed on purpose')
    }),
  )
  engine.register('wait', 1, async (ctx, _input: unknown) => ctx.waitForSignal('go'))
}

export async function fixture(
  options: Partial<DashboardOptions> = {},
  engine?: Engine,
): Promise<Fixture> {
  const own = engine === undefined
  const e = engine ?? new Engine({ store: new MemoryStore(), logger: silentLogger })
  if (own) {
    registerWorkflows(e)
    await e.startDriving()
  }
  const dashboard = createDashboard({
    engine: e,
    secret: SECRET,
    auth: { tokens: [TOKEN] },
    ...options,
  })
  return {
    engine: e,
    dashboard,
    close: async () => {
      await dashboard.close()
      if (own) await e.close(50)
    },
  }
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON the assertions inspect
export type Json = any

export interface CallOptions {
  method?: string
  body?: unknown
  headers?: Record<string, string>
  /** Send `Authorization: Bearer <TOKEN>` (default true). */
  bearer?: boolean
  base?: string
  /** The origin the request is addressed to (default ORIGIN); an open dashboard needs a loopback one. */
  origin?: string
}

export async function call(
  dashboard: Dashboard,
  path: string,
  options: CallOptions = {},
): Promise<{ status: number; headers: Headers; json: Json; text: string }> {
  const headers: Record<string, string> = { ...options.headers }
  if (options.bearer !== false) headers.authorization = `Bearer ${TOKEN}`
  let body: string | undefined
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
    headers['content-type'] ??= 'application/json'
  }
  const request = new Request(`${options.origin ?? ORIGIN}${options.base ?? ''}${path}`, {
    method: options.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
  })
  const response = await dashboard.fetch(request)
  const text = await response.text()
  let json: Json = undefined
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, headers: response.headers, json, text }
}

/** A logger that keeps every line it is given, to check what was (not) logged. */
export function capturingLogger(): Logger & { lines: string[] } {
  const lines: string[] = []
  const keep = (obj: Record<string, unknown>, msg: string) => {
    lines.push(`${msg} ${JSON.stringify(obj)}`)
  }
  return { lines, debug: keep, info: keep, warn: keep, error: keep }
}
