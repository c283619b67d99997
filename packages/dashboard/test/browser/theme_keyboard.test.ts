/**
 * Themes and keyboard use: the system's dark preference applies, the toggle overrides it and
 * is remembered across reloads; a keyboard alone reaches a run, opens a confirmation dialog
 * with focus inside it, and Escape gives focus back to the button that opened it.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole, settle } from './harness.ts'
import { saveScreenshot } from './screenshots.ts'
import type { PageDocument, PageElement, PageGetComputedStyle } from './page_dom.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const document: PageDocument
declare const location: { hash: string }
declare const getComputedStyle: PageGetComputedStyle

const theme = (page: Page) => page.evaluate(() => document.documentElement.dataset.theme)
const focused = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement
    return el ? `${el.tagName.toLowerCase()}:${(el.textContent ?? '').trim()}` : ''
  })

void test('dark preference applies; the toggle switches and is remembered', async (t) => {
  const { world, page, problems } = await openConsole(t, { colorScheme: 'dark' })
  const { runId } = await world.engine.start('batch', 2)
  await settle(world, runId)
  await page.goto(consoleUrl(world))
  await page.locator('.runs-table tbody tr').first().waitFor()
  assert.equal(await theme(page), 'dark')
  await saveScreenshot(page, 'runs-list-dark')
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  await page.locator('[data-steps-complete="true"]').waitFor()
  await saveScreenshot(page, 'run-dark')

  const toggle = page.getByRole('button', { name: 'Switch to the light theme' })
  await toggle.click()
  assert.equal(await theme(page), 'light')
  await page.reload()
  await page.locator('h1').waitFor()
  assert.equal(await theme(page), 'light', 'the choice was not remembered')
  await page.getByRole('button', { name: 'Switch to the dark theme' }).click()
  assert.equal(await theme(page), 'dark')
  assertNoProblems(problems)
})

void test('keyboard only: reach a run, open a dialog, Escape returns focus', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { runId } = await world.engine.start('approval', {})
  await page.goto(consoleUrl(world))
  await page.locator(`tr[data-run-id="${runId}"]`).waitFor()

  await page.keyboard.press('Tab')
  assert.equal(await focused(page), 'button:Skip to content')
  await page.keyboard.press('Enter')
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'main')

  const waitingChip = page.getByRole('button', { name: /^waiting/ })
  await waitingChip.focus()
  // The filtered list replaces the table's rows when it arrives: a link focused before that
  // would be gone when Enter is pressed.
  const filtered = page.waitForResponse(
    (response) =>
      response.url().includes('/api/runs?') && response.url().includes('status=waiting'),
  )
  await page.keyboard.press('Space')
  await page.waitForFunction(() => location.hash.includes('status=waiting'))
  await filtered
  assert.equal(await waitingChip.getAttribute('aria-pressed'), 'true')

  const link = page.getByRole('link', { name: runId })
  await page.locator(`tr[data-run-id="${runId}"]`).waitFor()
  await link.focus()
  await page.keyboard.press('Enter')
  await page.locator('.view-run h1').waitFor()
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'run-title')

  const cancel = page.getByRole('button', { name: 'Cancel', exact: true })
  await cancel.focus()
  await page.keyboard.press('Enter')
  const dialog = page.getByRole('dialog', { name: 'Cancel this run?' })
  await dialog.waitFor()
  const inDialog = await page.evaluate(() => document.activeElement?.closest('dialog') !== null)
  assert.ok(inDialog, 'focus did not move into the dialog')
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached' })
  assert.equal(await focused(page), 'button:Cancel')
  assert.equal((await world.engine.getRun(runId))?.status, 'waiting', 'Escape must not cancel')

  const visibleFocus = await page.evaluate(() => {
    const el = document.activeElement as PageElement
    return getComputedStyle(el).outlineStyle
  })
  assert.notEqual(visibleFocus, 'none', 'keyboard focus must be visible')
  assertNoProblems(problems)
})
