/**
 * The Queues page: the named queues the engine registered, one row per queue (concurrency,
 * rate, steps running, waiting and throttled, the oldest wait), read from the store and reached from the main
 * navigation; it follows the queue as slots free up.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole } from './harness.ts'
import { saveScreenshot } from './screenshots.ts'

void test('the Queues page shows running and waiting steps and follows them', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const carrier = Promise.withResolvers<void>()
  world.engine.registerQueue('carrier', { concurrency: 1 })
  world.engine.registerQueue('quiet', { concurrency: 3 })
  world.engine.registerQueue('payments', {
    concurrency: 2,
    rateLimit: { limit: 5, periodMs: 1000 },
  })
  world.engine.registerStep('book', async () => carrier.promise)
  world.engine.register('ship', 1, async (ctx) => ctx.step('book', null, { queue: 'carrier' }))
  const runs = [await world.engine.start('ship', null), await world.engine.start('ship', null)]

  await page.goto(consoleUrl(world, '#/runs'))
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Queues' }).click()
  await page.getByRole('heading', { name: 'Queues' }).waitFor()
  const row = page.getByRole('row').filter({ hasText: 'carrier' })
  await row.filter({ hasText: /\d+ s$/ }).waitFor()
  const cells = await row.getByRole('cell').allTextContents()
  assert.deepEqual(cells.slice(0, 7), ['carrier', '1', '—', '1', '0', '1', '0'])
  const quiet = await page
    .getByRole('row')
    .filter({ hasText: 'quiet' })
    .getByRole('cell')
    .allTextContents()
  assert.deepEqual(quiet, ['quiet', '3', '—', '0', '0', '0', '0', '—'])
  const payments = await page
    .getByRole('row')
    .filter({ hasText: 'payments' })
    .getByRole('cell')
    .allTextContents()
  assert.deepEqual(payments, ['payments', '2', '0 / 5 per 1 s', '0', '0', '0', '0', '—'])
  await saveScreenshot(page, 'queues')

  carrier.resolve()
  for (const run of runs) await world.engine.waitForRun(run.runId, { timeoutMs: 10_000 })
  await page
    .getByRole('row')
    .filter({ hasText: 'carrier' })
    .filter({ hasText: /^carrier\s*1\s*—\s*0\s*0\s*0\s*0\s*—$/ })
    .waitFor({ timeout: 15_000 })
  assertNoProblems(problems)
})
