/**
 * The Singletons page: the singleton keys with open runs, one row per key (workflow, key,
 * limit, runs admitted and queued, the oldest queued run's age), reached from the main
 * navigation; a key links to its runs in the runs list (the filter form shows the key); the
 * page follows the key as its runs end.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole } from './harness.ts'
import type { PageDocument } from './page_dom.ts'
import { saveScreenshot } from './screenshots.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const document: PageDocument

function waitForRunRows(page: Page, expected: number) {
  return page.waitForFunction(
    (n) => document.querySelectorAll('.runs-table tbody tr').length === n,
    expected,
  )
}

void test('the Singletons page counts each key and links to its runs', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { engine } = world
  engine.register('checkout', 1, async (ctx, _order: { cart: string }) => ctx.waitForSignal('go'), {
    singleton: { key: (order: { cart: string }) => order.cart },
  })
  const c7 = []
  for (let n = 0; n < 3; n++) c7.push(await engine.start('checkout', { cart: 'cart-7' }))
  const c9 = await engine.start('checkout', { cart: 'cart-9' })

  await page.goto(consoleUrl(world, '#/runs'))
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Singletons' })
    .click()
  await page.getByRole('heading', { name: 'Singletons' }).waitFor()
  const row = (key: string) => page.getByRole('row').filter({ hasText: key })
  await row('cart-7').waitFor()
  const cells = await row('cart-7').getByRole('cell').allTextContents()
  assert.deepEqual(cells.slice(0, 5), ['checkout', 'cart-7', '1', '1', '2'])
  assert.match(cells[5] ?? '', /^\d+(\.\d)? (ms|s)$/, 'the oldest queued run’s age')
  assert.deepEqual(await row('cart-9').getByRole('cell').allTextContents(), [
    'checkout',
    'cart-9',
    '1',
    '1',
    '0',
    '—',
  ])
  await saveScreenshot(page, 'singletons')

  // A key's runs: the runs list filtered to it, the form showing the key.
  await page.getByRole('link', { name: 'Runs of key cart-7 (checkout)' }).click()
  await waitForRunRows(page, 3)
  assert.match(page.url(), /#\/runs\?workflow=checkout&singletonKey=cart-7$/)
  assert.equal(await page.getByLabel('Singleton key').inputValue(), 'cart-7')
  const listed = await page
    .locator('.runs-table tbody tr')
    .evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run-id')))
  assert.deepEqual([...listed].sort(), c7.map((r) => r.runId).sort())

  // Back on the page: the holder ends, the first waiter takes its slot.
  await page.goBack()
  await page.getByRole('heading', { name: 'Singletons' }).waitFor()
  await engine.signal({ runId: c7[0]!.runId, name: 'go' }, null)
  await engine.waitForRun(c7[0]!.runId, { timeoutMs: 10_000 })
  await row('cart-7')
    .filter({ hasText: /^checkout\s*cart-7\s*1\s*1\s*1\s*/ })
    .waitFor()
  const rest = [...c7.slice(1), c9]
  for (const run of rest) await engine.signal({ runId: run.runId, name: 'go' }, null)
  for (const run of rest) await engine.waitForRun(run.runId, { timeoutMs: 10_000 })
  await page.getByText('No singleton key has open runs', { exact: false }).waitFor()
  assertNoProblems(problems)
})
