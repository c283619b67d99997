/**
 * The HTTP request suite (http_suite.ts) against the dashboard mounted by @cairn/adonis in a
 * real AdonisJS 7 app with the bodyparser middleware as a generated app registers it (and its
 * default config: JSON, form and multipart parsers on).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { test } from 'node:test'
import { defineConfig, stores } from '@cairn/adonis'
import type { Engine } from '@cairn/core'
import { startApp, tempDir } from '../../packages/adonis/test/helpers.ts'
import { SUITE_TOKEN, registerSuiteWorkflows, runHttpSuite } from './http_suite.ts'

void test('the HTTP suite against the dashboard mounted in an AdonisJS app', async (t) => {
  const path = join(await tempDir(t), 'durable.sqlite')
  const app = await startApp(
    t,
    defineConfig({
      store: 'sqlite',
      stores: { sqlite: stores.sqlite({ path }) },
      drive: true,
      dashboard: { enabled: true, path: '/ops/durable', tokens: [SUITE_TOKEN] },
    }),
  )
  const server = await app.container.make('server')
  server.use([() => import('@adonisjs/core/bodyparser_middleware')])
  await server.boot()
  const http = createServer((req, res) => void server.handle(req, res))
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => http.close(() => resolve())))
  const engine: Engine = await app.container.make('durable.engine')
  registerSuiteWorkflows(engine)
  const { port } = http.address() as AddressInfo
  await runHttpSuite({ base: `http://127.0.0.1:${port}/ops/durable`, engine })
})
