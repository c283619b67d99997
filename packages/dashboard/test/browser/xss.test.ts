/**
 * Markup in a workflow's name, input, step name and error is shown as the characters it is:
 * no element is created from it and no script runs, on the list, the run and the step pages.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole, settle } from './harness.ts'
import { saveScreenshot } from './screenshots.ts'
import { XSS, XSS_WORKFLOW } from './workflows.ts'
import type { PageDocument, PageWindow } from './page_dom.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const document: PageDocument
declare const window: PageWindow

async function assertInert(page: Page): Promise<void> {
  const state = await page.evaluate(() => ({
    fired: window.__xss,
    images: document.querySelectorAll('main img').length,
  }))
  assert.equal(state.fired, undefined, 'an injected handler ran')
  assert.equal(state.images, 0, 'an <img> element was created from data')
}

void test('hostile workflow name, input, step name and error render as text', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { runId } = await world.engine.start(XSS_WORKFLOW, { note: XSS })
  assert.equal(await settle(world, runId), 'failed')

  await page.goto(consoleUrl(world))
  const row = page.locator(`tr[data-run-id="${runId}"]`)
  await row.waitFor()
  assert.match(await row.innerText(), new RegExp(escape(XSS_WORKFLOW)))
  assert.match(await row.innerText(), new RegExp(escape(`boom ${XSS}`)))
  await assertInert(page)

  await row.getByRole('link').click()
  await page.locator('[data-steps-complete="true"]').waitFor()
  assert.equal(await page.locator('.error-message').innerText(), `boom ${XSS}`)
  assert.match(await page.locator('h1').innerText(), new RegExp(escape(XSS_WORKFLOW)))
  assert.match(await page.locator('.payloads').innerText(), new RegExp(escape(JSON.stringify(XSS))))
  assert.equal(await page.locator('.timeline').getByRole('link', { name: XSS }).count(), 1)
  await assertInert(page)
  await saveScreenshot(page, 'xss-run')

  await page.locator('.timeline').getByRole('link', { name: XSS }).click()
  await page.getByRole('heading', { name: `0. ${XSS}` }).waitFor()
  await assertInert(page)
  assertNoProblems(problems)
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
