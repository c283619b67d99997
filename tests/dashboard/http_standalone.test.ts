/** The HTTP request suite (http_suite.ts) against the dashboard served by serveDashboard. */
import { test } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import { createDashboard, serveDashboard } from '@cairn/dashboard'
import { SUITE_TOKEN, registerSuiteWorkflows, runHttpSuite } from './http_suite.ts'

void test('the HTTP suite against the standalone dashboard server', async () => {
  const engine = new Engine({ store: new MemoryStore(), logger: silentLogger })
  registerSuiteWorkflows(engine)
  await engine.startDriving()
  const dashboard = createDashboard({ engine, auth: { tokens: [SUITE_TOKEN] } })
  const served = await serveDashboard(dashboard)
  try {
    await runHttpSuite({ base: served.url, engine })
  } finally {
    await served.close()
    await engine.close(0)
  }
})
