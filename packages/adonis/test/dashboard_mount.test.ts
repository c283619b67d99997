/**
 * The dashboard the provider mounts when config/durable.ts enables it: served by the app's
 * own HTTP server under the configured path, with the app deciding access through
 * `authorize(ctx)`; the config is checked field by field.
 */
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { describe, test, type TestContext } from 'node:test'
import { defineConfig, stores, validateConfig } from '@cairn/adonis'
import type { HttpContext } from '@adonisjs/core/http'
import type { ApplicationService } from '@adonisjs/core/types'
import { startApp, tempDir } from './helpers.ts'

/** Serves the booted app's HTTP server on a free loopback port. */
async function listen(t: TestContext, app: ApplicationService): Promise<string> {
  const server = await app.container.make('server')
  await server.boot()
  const http = createServer((req, res) => void server.handle(req, res))
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => http.close(() => resolve())))
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}`
}

async function bootWith(t: TestContext, dashboard: Record<string, unknown>) {
  const path = join(await tempDir(t), 'durable.sqlite')
  const app = await startApp(
    t,
    defineConfig({ store: 'sqlite', stores: { sqlite: stores.sqlite({ path }) }, dashboard }),
  )
  return { app, url: await listen(t, app) }
}

void describe('dashboard mounted by the provider', () => {
  void test('authorize(ctx) decides; the API answers under the configured path', async (t) => {
    const seen: string[] = []
    const { app, url } = await bootWith(t, {
      enabled: true,
      path: '/ops/durable/',
      authorize: (ctx: HttpContext) => {
        seen.push(ctx.request.url())
        return ctx.request.header('x-role') === 'ops'
      },
    })
    const engine = await app.container.make('durable.engine')
    const run = await engine.start('greet', { name: 'Ada' })

    const refused = await fetch(`${url}/ops/durable/api/runs`)
    assert.equal(refused.status, 401)
    const allowed = await fetch(`${url}/ops/durable/api/runs`, { headers: { 'x-role': 'ops' } })
    assert.equal(allowed.status, 200)
    const body = (await allowed.json()) as { runs: Array<{ id: string }> }
    assert.deepEqual(
      body.runs.map((r) => r.id),
      [run.runId],
    )
    assert.ok(seen.includes('/ops/durable/api/runs'), JSON.stringify(seen))
    // Nothing is mounted at the default path.
    assert.equal((await fetch(`${url}/durable/api/runs`)).status, 404)
  })

  void test('not mounted unless enabled', async (t) => {
    const { url } = await bootWith(t, { tokens: ['a-token-of-16-chars+'] })
    assert.equal((await fetch(`${url}/durable/api/runs`)).status, 404)
  })

  void test('a bad dashboard config is refused, naming the field', () => {
    const sqlite = stores.sqlite({ path: 'x.sqlite' })
    const check = (dashboard: unknown, field: RegExp) =>
      assert.throws(
        () => validateConfig({ store: 'sqlite', stores: { sqlite }, dashboard }),
        (error: Error & { code?: string }) =>
          error.code === 'E_INVALID_ARGUMENT' && field.test(error.message),
      )
    check('yes', /"dashboard" must be an object/)
    check({ enabled: 'true' }, /"dashboard.enabled" must be true or false/)
    check({ path: 'durable' }, /"dashboard.path" must be an absolute URL path/)
    check({ path: '/a/../b' }, /"dashboard.path"/)
    check({ path: '/' }, /"dashboard.path" must not be "\/"/)
    check({ tokens: ['short'] }, /"dashboard.tokens"/)
    check({ authorize: true }, /"dashboard.authorize" must be a function/)
    check({ secret: 'too short' }, /"dashboard.secret"/)
    check({ mount: '/x' }, /"dashboard.mount" is not a known option/)
  })
})
