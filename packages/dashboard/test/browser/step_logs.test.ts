/**
 * Step logs in the console: a step running now (logged, no outcome yet) has its row on the
 * run's timeline with its progress and newest line; its position page lists each line (time,
 * level as a word, attempt, message as text, fields to open, the truncated mark) and the
 * progress, follows new lines live, and shows the step once it completes. The run page offers
 * the history as a download, on a read-only dashboard too. A memory store: the records are
 * written as a running step's flushes would write them.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MemoryStore } from '@cairn/core'
import type { StepLogEntry, StepProgressRecord } from '@cairn/core/contracts'
import type { Page } from 'playwright-core'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole, settle } from './harness.ts'
import type { World } from './world.ts'
import type { PageWindow } from './page_dom.ts'
import { saveScreenshot } from './screenshots.ts'
import { XSS, createGate } from './workflows.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const window: PageWindow

/** Registers `report`: position 0 completes, position 1 runs until `gate` opens. */
function registerReport(world: World) {
  const gate = createGate()
  let entered: () => void = () => {}
  const running = new Promise<void>((resolve) => (entered = resolve))
  world.engine.register('report', 1, async (ctx) => {
    await ctx.localStep('prepare', () => 'ready')
    return ctx.localStep('crunch', async () => (entered(), await gate.wait(), 42))
  })
  return { gate, running }
}

function appendLogs(
  world: World,
  runId: string,
  entries: StepLogEntry[],
  progress: StepProgressRecord,
) {
  const append = { runId, seq: 1, execution: 'test', entries, progress, maxEntries: 200 }
  return world.engine.options.store.appendStepLogs([append], Date.now())
}

const line = (i: number, level: StepLogEntry['level'], message: string, extra = {}) => ({
  i,
  at: Date.now(),
  level,
  attempt: 1,
  message,
  ...extra,
})

const timelineRow = (page: Page, seq: number) =>
  page.locator('.tl-row[role="row"]').filter({
    has: page.locator('div[role="cell"].mono', { hasText: new RegExp(`^${seq}$`) }),
  })

void test('a running step’s logs and progress show on the timeline and its position', async (t) => {
  const { world, page, problems } = await openConsole(t, { store: new MemoryStore() })
  const { gate, running } = registerReport(world)
  const { runId } = await world.engine.start('report', null)
  await running
  const fields = world.engine.options.codec.encode({ batch: 7, items: ['a', 'b'] })
  await appendLogs(
    world,
    runId,
    [
      line(0, 'info', 'starting batch', { fields }),
      line(1, 'warn', `slow supplier ${XSS}`, { truncated: true }),
    ],
    { p: 0, at: Date.now(), attempt: 1, fraction: 0.25, done: 3, total: 12 },
  )

  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  // Position 1 has no checkpoint yet: its row comes from its log record.
  const row = timelineRow(page, 1)
  await row.getByRole('progressbar', { name: 'Progress of position 1' }).waitFor()
  assert.equal(
    await row
      .getByRole('progressbar')
      .evaluate((bar) => (bar as unknown as { value: number }).value),
    0.25,
  )
  assert.equal(await row.locator('.status').innerText(), 'running')
  assert.equal(await row.locator('.log-level').innerText(), 'warn')
  assert.equal(await row.locator('.tl-log-message').innerText(), `slow supplier ${XSS}`)
  await saveScreenshot(page, 'run-step-logs')

  const download = page.waitForEvent('download')
  await page.getByRole('link', { name: 'Download history' }).click()
  assert.equal((await download).suggestedFilename(), `${runId}.history.json`)

  await row.getByRole('link').click()
  await page.getByRole('heading', { name: 'Position 1' }).waitFor()
  const progress = page.locator('.step-progress')
  await progress.getByText('3 / 12 (25%)').waitFor()
  assert.match(await progress.innerText(), /attempt 1/)
  const logs = page.getByRole('region', { name: 'Logs' })
  const items = logs.getByRole('listitem')
  assert.equal(await items.count(), 2)
  assert.equal(await items.nth(0).locator('.log-level').innerText(), 'info')
  assert.equal(await items.nth(0).locator('.log-message').innerText(), 'starting batch')
  assert.match(await items.nth(0).innerText(), /attempt 1/)
  await items.nth(0).getByText('Fields').click()
  assert.deepEqual(JSON.parse(await items.nth(0).locator('pre.json').innerText()), {
    batch: 7,
    items: ['a', 'b'],
  })
  assert.equal(await items.nth(1).locator('.log-level').innerText(), 'warn')
  assert.equal(await items.nth(1).locator('.log-message').innerText(), `slow supplier ${XSS}`)
  assert.equal(await items.nth(1).locator('.log-truncated').innerText(), 'truncated')
  assert.equal(await items.nth(1).locator('details').count(), 0, 'no fields, no block')

  // Live: a new line and progress arrive without a reload; the open fields stay open.
  await appendLogs(world, runId, [line(2, 'error', 'supplier down, retrying')], {
    p: 1,
    at: Date.now(),
    attempt: 1,
    fraction: 1,
    done: 12,
    total: 12,
  })
  await items.nth(2).getByText('supplier down, retrying').waitFor()
  assert.equal(await items.nth(2).locator('.log-level').innerText(), 'error')
  await progress.getByText('12 / 12 (100%)').waitFor()
  assert.equal(await items.nth(0).locator('details').getAttribute('open'), '')
  await saveScreenshot(page, 'step-logs')

  // The step completes: the page shows it, the logs stay.
  gate.open()
  assert.equal(await settle(world, runId), 'completed')
  await page.getByRole('heading', { name: '1. crunch' }).waitFor()
  assert.equal(await items.count(), 3)
  assert.equal(await page.evaluate(() => window.__xss), undefined, 'markup in a message ran')
  assertNoProblems(problems)
})

void test('a position without logs says so; a read-only run page offers the history', async (t) => {
  const { world, page, problems } = await openConsole(t, {
    store: new MemoryStore(),
    readOnly: true,
  })
  const { gate } = registerReport(world)
  gate.open()
  const { runId } = await world.engine.start('report', null)
  assert.equal(await settle(world, runId), 'completed')
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  const link = page.getByRole('link', { name: 'Download history' })
  await link.waitFor()
  const response = await page.request.get(String(await link.getAttribute('href')))
  assert.equal(response.status(), 200)
  assert.equal(((await response.json()) as { run: { id: string } }).run.id, runId)
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}/steps/0`))
  await page.getByRole('heading', { name: '0. prepare' }).waitFor()
  await page.getByRole('region', { name: 'Logs' }).getByText('No logs for this position.').waitFor()
  assert.equal(await page.locator('.step-progress').isVisible(), false)
  assertNoProblems(problems)
})
