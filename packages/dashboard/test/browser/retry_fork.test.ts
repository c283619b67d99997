/**
 * Runs made from runs: "Retry with edited input" starts a new run on the JSON typed into the
 * editor, "Fork from here…" re-runs a run from a chosen position; the console goes to the new
 * run, which completes and links back to its origin (engine.retryWithInput / engine.fork
 * through the dashboard's routes).
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, headerStatus, openConsole, settle } from './harness.ts'
import type { PageDocument } from './page_dom.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const document: PageDocument
declare const location: { hash: string }
/** Waits until the console shows a run other than `sourceId` and returns its id. */
async function newRunId(page: Page, sourceId: string): Promise<string> {
  const handle = await page.waitForFunction((source) => {
    const match = /^#\/runs\/([^/?]+)$/.exec(location.hash)
    const id = match ? decodeURIComponent(match[1] ?? '') : ''
    return id !== '' && id !== source ? id : false
  }, sourceId)
  return String(await handle.jsonValue())
}

void test('retry with edited input: a new run on the edited JSON, linked to its origin', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const failed = await world.engine.start('ship-order', { id: 'o-1', total: 42 })
  assert.equal(await settle(world, failed.runId), 'failed')
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(failed.runId)}`))
  await page.locator('.view-run h1').waitFor()
  world.controls.paymentsUp = true
  world.controls.chargeGate.open()

  await page.getByRole('button', { name: 'Retry with edited input' }).click()
  const dialog = page.getByRole('dialog', { name: 'Retry with edited input' })
  await dialog.getByLabel('Input (JSON)').fill('{ "id": "o-1", "total": 7 }')
  await dialog.getByRole('button', { name: 'Start new run' }).click()
  const retried = await newRunId(page, failed.runId)
  assert.equal(await settle(world, retried), 'completed')
  await page.waitForFunction(
    () => document.querySelector('.view-run .view-header .status')?.textContent === 'completed',
  )
  assert.equal(await headerStatus(page).innerText(), 'completed')
  assert.match(await page.locator('.payloads').innerText(), /"charge": "ch-7"/)
  await page.locator('.lineage').getByRole('link', { name: failed.runId }).waitFor()
  assertNoProblems(problems)
})

void test('fork from a position: earlier results reused, the rest runs again', async (t) => {
  const { world, page, problems } = await openConsole(t)
  world.controls.paymentsUp = true
  world.controls.chargeGate.open()
  const source = await world.engine.start('ship-order', { id: 'o-9', total: 9 })
  assert.equal(await settle(world, source.runId), 'completed')
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(source.runId)}/steps/1`))
  await page.getByRole('heading', { name: '1. charge' }).waitFor()

  await page.getByRole('button', { name: 'Fork from here…' }).click()
  const dialog = page.getByRole('dialog', { name: 'Fork this run' })
  assert.equal(await dialog.getByLabel('Run again from position').inputValue(), '1')
  await dialog.getByRole('button', { name: 'Fork run' }).click()
  const forked = await newRunId(page, source.runId)
  assert.equal(await settle(world, forked), 'completed')
  assert.equal(world.controls.reservations, 1, 'position 0 ran again instead of being reused')
  await page.locator('.lineage').getByRole('link', { name: source.runId }).waitFor()
  const steps = await world.engine.getSteps(forked)
  assert.deepEqual(
    steps.map((step) => [step.name, step.output]),
    [
      ['reserve', 'res-o-9'],
      ['charge', 'ch-9'],
    ],
  )
  assertNoProblems(problems)
})
