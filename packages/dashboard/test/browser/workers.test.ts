/**
 * The Workers page: the remote-step fleet the engine hears on its transports, one row per live
 * worker (id, transport, capabilities, steps, concurrency, protocol), reached from the main
 * navigation; a worker that leaves disappears at the next refresh; none is a notice, not an
 * empty table.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createMemoryTransport } from '@cairn/core/testing'
import { createWorker } from '@cairn/worker'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole } from './harness.ts'
import { saveScreenshot } from './screenshots.ts'

void test('the Workers page lists the live fleet and follows it', async (t) => {
  const transport = createMemoryTransport()
  const { world, page, problems } = await openConsole(t, {
    transports: { renderers: transport.engine() },
  })
  const worker = createWorker({
    transport: transport.worker(),
    workerId: 'render-1',
    capabilities: ['gpu', 'pdf'],
    concurrency: 4,
    steps: { render: () => 1 },
  })
  const adaptive = createWorker({
    transport: transport.worker(),
    workerId: 'render-2',
    concurrency: { mode: 'adaptive', min: 2, max: 16 },
    steps: { render: () => 1 },
  })
  await worker.start()
  await adaptive.start()
  t.after(() => worker.close(100))
  t.after(() => adaptive.close(100))

  await page.goto(consoleUrl(world, '#/runs'))
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Workers' })
    .click()
  await page.getByRole('heading', { name: 'Workers' }).waitFor()
  const row = page.getByRole('row').filter({ hasText: 'render-1' })
  await row.waitFor()
  const cells = await row.getByRole('cell').allTextContents()
  assert.deepEqual(
    [cells[0], cells[1], cells[3], cells[4], cells[5], cells[6], cells[8]],
    ['render-1', 'renderers', 'gpu, pdf', 'render', '4', '0', 'v1'],
  )
  const second = page.getByRole('row').filter({ hasText: 'render-2' })
  assert.equal((await second.getByRole('cell').allTextContents())[5], '2 (adaptive 2–16)')
  await saveScreenshot(page, 'workers')

  await worker.close(100)
  await adaptive.close(100)
  await page.getByText('No live workers').waitFor({ timeout: 15_000 })
  assertNoProblems(problems)
})
