/**
 * docs/dashboard.md's example, runnable: the dashboard mounted under /admin/cairn beside an
 * app's own routes in a plain node:http server, used as an API client would (bearer token),
 * then as the console does (login, session cookie, CSRF header), and the run's history
 * downloaded.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createTestEngine } from '@cairn/core/testing'
import { createDashboard, toNodeListener } from '@cairn/dashboard'

const t = await createTestEngine()
t.engine.register('approval', 1, async (ctx, amount: number) => {
  const decision = await ctx.waitForSignal<string>('decision')
  return `${decision} (${amount})`
})
const { runId } = await t.engine.start('approval', 250, { tags: ['finance'] })
await t.runUntilIdle() // the run now waits for its signal

const token = 'an-operator-token-of-32-characters!'
const dashboard = createDashboard({
  engine: t.engine,
  basePath: '/admin/cairn',
  auth: { tokens: [token] },
})
const dashboardListener = toNodeListener(dashboard)
const server = createServer((req, res) => {
  if (req.url?.startsWith('/admin/cairn')) return dashboardListener(req, res)
  res.end('the app itself') // the app's own routes
})
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin/cairn`

// An API client: a bearer token, no cookies, no CSRF header needed.
const bearer = { authorization: `Bearer ${token}` }
const response = await fetch(`${base}/api/runs?tag=finance&status=waiting`, { headers: bearer })
const list = (await response.json()) as { runs: Array<{ id: string }> }
assert.equal(list.runs[0]?.id, runId)
console.log(
  'waiting finance runs:',
  list.runs.map((r) => r.id),
)

// The console: log in once with the token, then the session cookie and its CSRF token.
const login = await fetch(`${base}/api/session`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ token }),
})
const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string
const { csrfToken } = (await login.json()) as { csrfToken: string }
const refused = await fetch(`${base}/api/runs/${runId}/signal`, {
  method: 'POST',
  headers: { cookie, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'decision', payload: 'approved' }),
})
assert.equal(refused.status, 403) // no x-cairn-csrf header: E_CSRF
const signalled = await fetch(`${base}/api/runs/${runId}/signal`, {
  method: 'POST',
  headers: { cookie, 'x-cairn-csrf': csrfToken, 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'decision', payload: 'approved' }),
})
console.log('signal:', await signalled.json())

const outcome = await t.engine.waitForRun(runId)
assert.deepEqual(outcome, { runId, status: 'completed', output: 'approved (250)' })
console.log('run:', outcome.status, outcome.status === 'completed' ? outcome.output : '')

// Its recorded history as a file, to keep as a replay-test fixture (replayHistory).
const history = await fetch(`${base}/api/runs/${runId}/history`, { headers: bearer })
const recorded = (await history.json()) as { format: string; checkpoints: unknown[] }
assert.equal(recorded.format, 'cairn.history')
console.log('history:', history.headers.get('content-disposition'), recorded.checkpoints.length)

await dashboard.close()
server.close()
await t.close()
