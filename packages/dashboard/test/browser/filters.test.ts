/**
 * The runs list's filters and paging against a real store: the run id search, the created
 * range, the tag and search attributes narrow the list, the URL carries the filter (a reload shows the same list
 * and form), the server's cursor pages through more runs than fit on one page and back, and
 * the list tails live; the Stuck quick filter lists open runs nobody claimed.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine, silentLogger } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { SqliteStore } from '@cairn/sql/sqlite'
import type { Page } from 'playwright-core'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole, settle } from './harness.ts'
import type { PageDocument } from './page_dom.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const document: PageDocument

function waitForRows(page: Page, expected: number) {
  return page.waitForFunction(
    (n) => document.querySelectorAll('.runs-table tbody tr').length === n,
    expected,
  )
}

void test('run id search, created range and tag narrow the list; the URL keeps them', async (t) => {
  const { world, page, problems } = await openConsole(t)
  await world.engine.start('approval', {}, { runId: 'order-alpha-1', tags: ['vip'] })
  await world.engine.start('approval', {}, { runId: 'order-beta-2' })
  await page.goto(consoleUrl(world))
  await waitForRows(page, 2)
  // The workflow facet suggests each workflow with its run count.
  await page.waitForFunction(
    () => document.querySelectorAll('datalist option[label="approval (2)"]').length === 1,
  )

  await page.getByLabel('Run id contains').fill('alpha')
  await page.getByLabel('Run id contains').press('Enter')
  await waitForRows(page, 1)
  assert.equal(
    await page.locator('.runs-table tbody tr').getAttribute('data-run-id'),
    'order-alpha-1',
  )
  assert.match(page.url(), /#\/runs\?q=alpha$/)

  await page.reload()
  await waitForRows(page, 1)
  assert.equal(await page.getByLabel('Run id contains').inputValue(), 'alpha')

  await page.getByLabel('Created from').fill('2999-01-01T00:00')
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await page.getByText('No runs match this filter.').waitFor()
  assert.match(page.url(), /createdFrom=2999-01-01T/)

  await page.getByRole('button', { name: 'Clear' }).click()
  await waitForRows(page, 2)
  await page.getByLabel('Tag').fill('vip')
  await page.getByLabel('Tag').press('Enter')
  await waitForRows(page, 1)
  assert.match(page.url(), /#\/runs\?tag=vip$/)
  assert.equal(await page.locator('tr[data-run-id="order-alpha-1"] .tag').innerText(), 'vip')
  await page.getByRole('button', { name: 'Clear' }).click()
  await waitForRows(page, 2)
  assert.match(page.url(), /#\/runs$/)
  assertNoProblems(problems)
})

void test('search attribute filters: name, comparison and value, kept in the URL', async (t) => {
  const { world, page, problems } = await openConsole(t)
  for (const [customer, amount] of [
    ['acme', 50],
    ['acme', 900],
    ['globex', 900],
  ] as const) {
    const { runId } = await world.engine.start('invoice', { customer, amount })
    await settle(world, runId)
  }
  await page.goto(consoleUrl(world, '#/runs?workflow=invoice'))
  await waitForRows(page, 3)

  await page.getByRole('button', { name: 'Add attribute filter' }).click()
  await page.getByLabel('Name', { exact: true }).fill('customer')
  await page.getByLabel('Value').fill('acme')
  await page.getByRole('button', { name: 'Add attribute filter' }).click()
  await page.getByLabel('Name', { exact: true }).nth(1).fill('amount')
  await page.getByLabel('Comparison').nth(1).selectOption('gt')
  await page.getByLabel('Value').nth(1).fill('100')
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await waitForRows(page, 1)
  assert.match(page.url(), /attr=customer%3Aeq%3Aacme&attr=amount%3Agt%3A100/)

  await page.reload()
  await waitForRows(page, 1)
  assert.equal(await page.getByLabel('Comparison').nth(1).inputValue(), 'gt')
  await page.getByRole('button', { name: 'Remove this attribute filter' }).nth(1).click()
  await page.getByRole('button', { name: 'Apply filters' }).click()
  await waitForRows(page, 2)
  assertNoProblems(problems)
})

void test('cursor paging: next page, previous page, first page', async (t) => {
  const { world, page, problems } = await openConsole(t)
  for (let i = 0; i < 60; i++) {
    await world.engine.start('approval', {}, { runId: `run-${String(i).padStart(2, '0')}` })
  }
  await page.goto(consoleUrl(world))
  await waitForRows(page, 50)
  const firstPageTop = await page
    .locator('.runs-table tbody tr')
    .first()
    .getAttribute('data-run-id')
  assert.equal(await page.getByRole('button', { name: 'Previous page' }).isDisabled(), true)

  await page.getByRole('button', { name: 'Next page' }).click()
  await waitForRows(page, 10)
  assert.match(page.url(), /cursor=/)
  assert.equal(await page.getByRole('button', { name: 'Next page' }).isDisabled(), true)
  const secondPage = await page
    .locator('.runs-table tbody tr')
    .evaluateAll((rows) =>
      rows.map((row) => (row as unknown as { dataset: { runId: string } }).dataset.runId),
    )
  assert.ok(!secondPage.includes(firstPageTop ?? ''), 'the second page repeats the first')

  await page.getByRole('button', { name: 'Previous page' }).click()
  await waitForRows(page, 50)
  assert.equal(
    await page.locator('.runs-table tbody tr').first().getAttribute('data-run-id'),
    firstPageTop,
  )
  assert.equal(await page.getByRole('button', { name: 'First page' }).isDisabled(), true)
  assertNoProblems(problems)
})

void test('the list tails live: a run started elsewhere appears and changes status', async (t) => {
  const { world, page, problems } = await openConsole(t)
  await page.goto(consoleUrl(world, '#/runs?status=waiting&status=completed'))
  await page.getByText('No runs match this filter.').waitFor()
  await page.getByText('Live', { exact: true }).waitFor()

  const { runId } = await world.engine.start('approval', {}, { runId: 'live-one' })
  const row = page.locator(`tr[data-run-id="${runId}"]`)
  await row.locator('.status', { hasText: 'waiting' }).waitFor()
  await world.engine.signal({ runId, name: 'approve' }, 'ok')
  await row.locator('.status', { hasText: 'completed' }).waitFor()
  // Announced to screen readers through the aria-live region (batched, so wait for it).
  await page.locator('#live-region', { hasText: 'live-one' }).waitFor({ state: 'attached' })
  assertNoProblems(problems)
})

/** Starts a run of a workflow no engine drives, from an engine whose clock is an hour behind. */
async function startStuckRun(dbPath: string, runId: string): Promise<void> {
  const past = new Engine({
    store: new SqliteStore({ path: dbPath }),
    logger: silentLogger,
    clock: new FakeClock(Date.now() - 3_600_000),
  })
  past.register('nightly-import', 1, async () => 'never run')
  await past.start('nightly-import', {}, { runId })
  await past.close()
}

void test('the Stuck filter lists open runs claimable for more than N minutes', async (t) => {
  // The world's engine would park the unregistered workflow's run after a minute otherwise.
  const { world, page, problems } = await openConsole(t, { parkUnrunnableAfterMs: 86_400_000 })
  await startStuckRun(world.dbPath, 'stuck-import')
  await world.engine.start('reminder', {}, { runId: 'reminder-1' })
  const waiting = async () => (await world.engine.getRun('reminder-1'))?.status === 'waiting'
  while (!(await waiting())) await new Promise((resolve) => setTimeout(resolve, 20))
  const stuckMinutes = page.getByRole('spinbutton', { name: /^Stuck/ })
  await page.goto(consoleUrl(world))
  await waitForRows(page, 2)
  assert.equal(await stuckMinutes.inputValue(), '5')

  await page.getByRole('button', { name: 'Show stuck runs' }).click()
  await waitForRows(page, 1)
  assert.equal(
    await page.locator('.runs-table tbody tr').getAttribute('data-run-id'),
    'stuck-import',
  )
  // The minutes, resolved by the server on the engine's clock: no statuses, no time.
  assert.match(page.url(), /#\/runs\?stuckFor=5$/)
  const chip = page.locator('.stuck-chip')
  assert.equal(await chip.locator('span').innerText(), 'Stuck > 5 min')

  await page.reload()
  await waitForRows(page, 1)
  assert.equal(await stuckMinutes.inputValue(), '5', 'the minutes, from the URL')
  assert.equal(await page.getByLabel('Claimable before').count(), 0, 'no editable cutoff')

  // Applying the form keeps the stuck filter exactly.
  await page.getByLabel('Run id contains').fill('stuck')
  await page.getByLabel('Run id contains').press('Enter')
  await page.waitForURL(/#\/runs\?q=stuck&stuckFor=5$/)
  await waitForRows(page, 1)

  // Stuck for an hour, not for two.
  await stuckMinutes.fill('120')
  await page.getByRole('button', { name: 'Show stuck runs' }).click()
  await page.getByText('No runs match this filter.').waitFor()
  await page.reload()
  await page.getByText('No runs match this filter.').waitFor()
  assert.equal(await stuckMinutes.inputValue(), '120', 'the minutes, from the URL')
  assert.equal(await chip.locator('span').innerText(), 'Stuck > 120 min')

  // Out of range: refused in the form, the filter stays as it was.
  await stuckMinutes.fill('525601')
  await page.getByRole('button', { name: 'Show stuck runs' }).click()
  assert.equal(await stuckMinutes.evaluate((input) => input.validity.valid), false)
  assert.match(page.url(), /stuckFor=120$/)

  // An empty input means the default.
  await stuckMinutes.fill('')
  await page.getByRole('button', { name: 'Show stuck runs' }).click()
  await page.waitForURL(/stuckFor=5$/)
  await waitForRows(page, 1)

  await chip.getByRole('button', { name: /^Remove the filter Stuck > 5 min/ }).click()
  await page.waitForURL(/#\/runs\?q=stuck$/)
  assert.equal(await chip.isHidden(), true)
  await page.getByRole('button', { name: 'Show stuck runs' }).click()
  await page.waitForURL(/stuckFor=5$/)
  await page.getByRole('button', { name: 'Clear' }).click()
  await waitForRows(page, 2)
  assert.match(page.url(), /#\/runs$/, 'Clear drops the stuck filter')
  assertNoProblems(problems)
})
