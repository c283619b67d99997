/**
 * The operator's path through the console against a real engine: open the runs list, filter
 * to failed runs, open the failed one, read its error, retry it, and watch it complete live —
 * the page is never reloaded, so the completion can only have come over the run's stream.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, headerStatus, openConsole, settle } from './harness.ts'
import { saveScreenshot } from './screenshots.ts'
import type { PageDocument, PageWindow } from './page_dom.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const document: PageDocument
declare const window: PageWindow
declare const navigator: { clipboard: { readText(): Promise<string> } }

void test('list → filter → failed run → retry → completes live', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { engine } = world
  const failed = await engine.start('ship-order', { id: 'o-1', total: 42 })
  assert.equal(await settle(world, failed.runId), 'failed')
  const batch = await engine.start('batch', 3)
  assert.equal(await settle(world, batch.runId), 'completed')
  await engine.start('approval', {})

  await page.goto(consoleUrl(world))
  await page.locator(`tr[data-run-id="${batch.runId}"]`).waitFor()
  assert.equal(await page.locator('.runs-table tbody tr').count(), 4) // batch's child too
  await page
    .getByRole('button', { name: /^failed/ })
    .locator('.chip-count')
    .filter({ hasText: '1' })
    .waitFor()
  await saveScreenshot(page, 'runs-list')

  await page.getByRole('button', { name: /^failed/ }).click()
  await page.waitForFunction(() => document.querySelectorAll('.runs-table tbody tr').length === 1)
  assert.match(page.url(), /#\/runs\?status=failed$/)
  assert.equal(
    await page.getByRole('button', { name: /^failed/ }).getAttribute('aria-pressed'),
    'true',
  )
  await page.getByLabel('Workflow').fill('batch')
  await page.getByLabel('Workflow').press('Enter')
  await page.getByText('No runs match this filter.').waitFor()
  assert.match(page.url(), /#\/runs\?status=failed&workflow=batch$/)
  await page.getByLabel('Workflow').fill('ship-order')
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await page.waitForFunction(() => document.querySelectorAll('.runs-table tbody tr').length === 1)
  assert.match(page.url(), /#\/runs\?status=failed&workflow=ship-order$/)
  const row = page.locator(`tr[data-run-id="${failed.runId}"]`)
  assert.match(await row.innerText(), /payment provider unavailable/)

  await page.evaluate(() => (window.marker = 'no reload'))
  await row.getByRole('link', { name: failed.runId }).click()
  await page.locator('.error-message').waitFor()
  assert.equal(await page.locator('.error-message').innerText(), 'payment provider unavailable')
  assert.equal(await headerStatus(page).innerText(), 'failed')
  await page.locator('[data-steps-complete="true"]').waitFor()
  await saveScreenshot(page, 'run-failed')

  world.controls.paymentsUp = true // the outage is over; the charge now waits at the gate
  await page.getByRole('button', { name: 'Retry', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Retry this run?' })
  await dialog.waitFor()
  await saveScreenshot(page, 'dialog-retry')
  await dialog.getByRole('button', { name: 'Retry run' }).click()
  await dialog.waitFor({ state: 'detached' })

  await page.waitForFunction(() => {
    const status = document.querySelector('.view-run .view-header .status')?.textContent
    return status === 'running' || status === 'pending'
  })
  world.controls.chargeGate.open()
  await page.waitForFunction(
    () => document.querySelector('.view-run .view-header .status')?.textContent === 'completed',
  )
  assert.equal(await settle(world, failed.runId), 'completed')
  // The header and the payloads may come from two live updates: wait for the output itself
  // (it never arriving fails here, after the locator's timeout).
  await page.getByRole('heading', { name: 'Output' }).waitFor()
  await page.locator('.payloads').filter({ hasText: '"charge": "ch-42"' }).waitFor()
  assert.match(await page.locator('.payloads').innerText(), /"charge": "ch-42"/)
  assert.equal(await page.locator('.error-panel').count(), 0)
  const marker = await page.evaluate(() => window.marker)
  assert.equal(marker, 'no reload', 'the page was reloaded: the update did not come live')
  await saveScreenshot(page, 'run-completed')

  await page.getByRole('link', { name: 'charge' }).click()
  await page.getByRole('heading', { name: '1. charge' }).waitFor()
  assert.match(await page.locator('pre.json').last().innerText(), /"ch-42"/)
  assert.equal(await page.getByRole('link', { name: 'Next position' }).count(), 0) // the last one
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'])
  await page.getByRole('button', { name: 'Copy output' }).click()
  await page.getByRole('button', { name: 'Copied' }).waitFor()
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), '"ch-42"')
  await saveScreenshot(page, 'step-detail')
  assertNoProblems(problems)
})
