/**
 * The position page shows a registered step's input (formatted JSON with a copy button, as
 * text even when it holds markup); a local step's page has no Input section.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole, settle } from './harness.ts'
import type { PageWindow } from './page_dom.ts'
import { XSS } from './workflows.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const window: PageWindow
declare const navigator: { clipboard: { readText(): Promise<string> } }

void test('a registered step’s position shows its input; a local step’s shows none', async (t) => {
  const { world, page, problems } = await openConsole(t)
  world.engine.registerStep('price', (order: { sku: string; qty: number }) => order.qty * 5)
  world.engine.register('quote', 1, async (ctx) => {
    await ctx.localStep('prepare', () => 'ready')
    return ctx.step('price', { sku: 'b-1', qty: 2, note: XSS })
  })
  const { runId } = await world.engine.start('quote', null)
  assert.equal(await settle(world, runId), 'completed')

  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}/steps/1`))
  await page.getByRole('heading', { name: '1. price' }).waitFor()
  const input = page.getByRole('region', { name: 'Input' })
  assert.equal(
    await input.locator('pre.json').innerText(),
    JSON.stringify({ sku: 'b-1', qty: 2, note: XSS }, null, 2),
  )
  assert.equal(await page.evaluate(() => window.__xss), undefined, 'markup in the input ran')
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
  await page.getByRole('button', { name: 'Copy input' }).click()
  await page.getByRole('button', { name: 'Copied' }).waitFor()
  assert.deepEqual(JSON.parse(await page.evaluate(() => navigator.clipboard.readText())), {
    sku: 'b-1',
    qty: 2,
    note: XSS,
  })

  await page.getByRole('link', { name: 'Previous position' }).click()
  await page.getByRole('heading', { name: '0. prepare' }).waitFor()
  await page.getByRole('heading', { name: 'Output' }).waitFor()
  assert.equal(await page.getByRole('heading', { name: 'Input' }).count(), 0)
  assertNoProblems(problems)
})
