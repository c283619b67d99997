/**
 * A run with 10,000 positions: its page loads every position (paged from the API), keeps only
 * a window of rows in the DOM, and still answers a scroll and a click. Timings are reported
 * with t.diagnostic (performance belongs to the bench); what is asserted is behaviour.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assertNoProblems } from './browser.ts'
import { openConsole } from './harness.ts'
import { measureRunRender, startLargeRun } from './measure_render.ts'
import { saveScreenshot } from './screenshots.ts'
import type { PageDocument } from './page_dom.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const document: PageDocument

const STEPS = 10_000

void test('a 10,000-position run renders windowed and stays interactive', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const runId = await startLargeRun(world, STEPS)
  const measured = await measureRunRender(page, world.url, runId, STEPS)
  for (const [name, value] of Object.entries(measured)) {
    t.diagnostic(`${name}: ${typeof value === 'number' ? Math.round(value) : value}`)
  }
  assert.ok(measured.rowsInDom < 200, `windowing kept ${measured.rowsInDom} rows in the DOM`)
  await page.goBack()
  await page.locator('[data-steps-complete="true"]').waitFor()
  assert.match(
    await page.locator('.timeline-section .list-status').innerText(),
    /^10000 positions$/,
  )
  await page.getByLabel('Go to position').fill('7321')
  await page.getByLabel('Go to position').press('Enter')
  await page.waitForFunction(() => document.activeElement?.textContent === 'step-7321')
  await saveScreenshot(page, 'run-large')
  assertNoProblems(problems)
})
