/**
 * Actions from the console against a real engine: a signal or a breakpoint's continue sent
 * through its dialog completes a waiting run (seen live); the JSON editor refuses invalid
 * input before anything is sent; cancel with compensation undoes a saga's completed step; a bulk cancel over the current filter shows how many runs
 * match, then cancels them; a refused action shows its code in the dialog and changes
 * nothing; a read-only dashboard offers no action.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, headerStatus, openConsole, settle } from './harness.ts'
import { saveScreenshot } from './screenshots.ts'
import type { PageDocument } from './page_dom.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const document: PageDocument

void test('send a signal from the dialog; the run completes live', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { runId } = await world.engine.start('approval', {})
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  await page.getByRole('heading', { name: 'Waiting for' }).waitFor()
  assert.match(await page.locator('.waits').innerText(), /Signal “approve”/)
  await page.locator('.tl-bar-waiting').waitFor() // the open wait, hatched on the timeline

  await page.getByRole('button', { name: 'Send signal' }).click()
  const dialog = page.getByRole('dialog', { name: 'Send a signal' })
  assert.equal(await dialog.getByLabel('Signal name').inputValue(), 'approve') // from the wait
  await dialog.getByLabel('Payload (JSON, optional)').fill('{"by": "ops"}')
  await saveScreenshot(page, 'dialog-signal')
  await dialog.getByRole('button', { name: 'Send signal' }).click()
  await dialog.waitFor({ state: 'detached' })
  assert.equal(await settle(world, runId), 'completed')
  await page.waitForFunction(
    () => document.querySelector('.view-run .view-header .status')?.textContent === 'completed',
  )
  assert.equal(await headerStatus(page).innerText(), 'completed')
  assert.match(await page.locator('.payloads').innerText(), /"by": "ops"/)
  assertNoProblems(problems)
})

void test('continue a breakpoint with a note; the run completes live', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { runId } = await world.engine.start('reviewed', {})
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  await page.getByRole('button', { name: 'Continue breakpoint' }).click()
  const dialog = page.getByRole('dialog', { name: 'Continue from the breakpoint' })
  assert.equal(await dialog.getByLabel('Breakpoint label (optional)').inputValue(), 'review')
  await dialog.getByLabel('Note for the run (JSON, optional)').fill('"looks good"')
  await dialog.getByRole('button', { name: 'Continue run' }).click()
  await dialog.waitFor({ state: 'detached' })
  await page.waitForFunction(
    () => document.querySelector('.view-run .view-header .status')?.textContent === 'completed',
  )
  assert.equal(await settle(world, runId), 'completed')
  assert.match(await page.locator('.payloads').innerText(), /"looks good"/)
  assertNoProblems(problems)
})

void test('cancel with compensation undoes the completed step', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { runId } = await world.engine.start('booking', {})
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  await page.getByRole('heading', { name: 'Waiting for' }).waitFor()
  await page.getByRole('button', { name: 'Cancel with compensation' }).click()
  const dialog = page.getByRole('dialog', { name: 'Cancel and compensate?' })
  await dialog.getByRole('button', { name: 'Cancel and compensate' }).click()
  await dialog.waitFor({ state: 'detached' })
  assert.equal(await settle(world, runId), 'cancelled')
  assert.equal(world.controls.releases, 1)
  await page.waitForFunction(
    () => document.querySelector('.view-run .view-header .status')?.textContent === 'cancelled',
  )
  await page.locator('.timeline').getByRole('link', { name: 'compensate:hold-room' }).waitFor()
  assertNoProblems(problems)
})

void test('the JSON editor refuses invalid input and sends nothing', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { runId } = await world.engine.start('batch', 1)
  await settle(world, runId)
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  await page.getByRole('button', { name: 'Retry with edited input' }).click()
  const dialog = page.getByRole('dialog', { name: 'Retry with edited input' })
  const editor = dialog.getByLabel('Input (JSON)')
  assert.equal(await editor.inputValue(), '1') // prefilled with the run's input
  const requests: string[] = []
  page.on('request', (request) => {
    if (request.method() === 'POST') requests.push(request.url())
  })
  await editor.fill('{"size": 2,')
  await dialog.getByRole('button', { name: 'Start new run' }).click()
  await dialog.getByText(/^Not valid JSON/).waitFor()
  assert.equal(await editor.getAttribute('aria-invalid'), 'true')
  assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'TEXTAREA')
  assert.deepEqual(requests, [], 'invalid JSON must not be sent')
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await dialog.waitFor({ state: 'detached' })
  assertNoProblems(problems)
})

void test('bulk cancel over the filter: the count first, then every matching run', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const runIds = await Promise.all(
    [1, 2, 3].map(async () => (await world.engine.start('approval', {})).runId),
  )
  const other = await world.engine.start('batch', 1)
  await settle(world, other.runId)
  await page.goto(consoleUrl(world, '#/runs?status=waiting'))
  await page.waitForFunction(() => document.querySelectorAll('.runs-table tbody tr').length === 3)

  await page.getByRole('button', { name: 'Cancel open…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Bulk cancel' })
  await dialog.getByText('3 open runs match the current filter and will be cancelled.').waitFor()
  await saveScreenshot(page, 'dialog-bulk-cancel')
  await dialog.getByLabel('Reason (optional)').fill('cleanup')
  await dialog.getByRole('button', { name: 'Cancel 3 runs' }).click()
  await dialog.waitFor({ state: 'detached' })
  for (const runId of runIds) assert.equal((await world.engine.getRun(runId))?.status, 'cancelled')
  assert.equal((await world.engine.getRun(other.runId))?.status, 'completed')
  await page.waitForFunction(() => document.querySelectorAll('.runs-table tbody tr').length === 0)
  assertNoProblems(problems)
})

void test('a refused action shows its code in the dialog and changes nothing', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { runId } = await world.engine.start('approval', {})
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  await page.getByRole('button', { name: 'Cancel', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Cancel this run?' })
  // Someone else ends the run while the dialog is open: the server refuses the cancel.
  await world.engine.cancel(runId, { reason: 'cancelled elsewhere' })
  await dialog.getByRole('button', { name: 'Cancel run' }).click()
  await dialog
    .getByRole('alert')
    .filter({ hasText: /^E_RUN_TERMINAL: / })
    .waitFor()
  const run = await world.engine.getRun(runId)
  assert.equal(run?.status, 'cancelled')
  assert.equal(run?.error?.message, 'cancelled elsewhere', 'the first cancel stands')
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached' })
  problems.consoleErrors = problems.consoleErrors.filter((text) => !/409/.test(text))
  assertNoProblems(problems)
})

void test('a read-only dashboard offers no action and says so', async (t) => {
  const { world, page, problems } = await openConsole(t, { readOnly: true })
  const { runId } = await world.engine.start('approval', {})
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  await page.getByText('Read-only dashboard: actions are turned off.').waitFor()
  assert.equal(await page.getByRole('button', { name: 'Cancel', exact: true }).count(), 0)
  assert.equal(await page.getByRole('button', { name: 'Send signal' }).count(), 0)
  await page.goto(consoleUrl(world, '#/runs'))
  await page.getByRole('heading', { name: 'Runs' }).waitFor()
  assert.equal(await page.getByRole('button', { name: 'Cancel open…' }).count(), 0)
  assert.equal((await world.engine.getRun(runId))?.status, 'waiting')
  assertNoProblems(problems)
})
