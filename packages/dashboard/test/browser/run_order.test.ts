/**
 * The runs list's order: the Created header toggles newest first / oldest first, says which
 * with aria-sort, keeps it in the URL (a reload shows the same order), and paging and a new
 * filter keep it.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Page } from 'playwright-core'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole } from './harness.ts'
import type { PageDocument } from './page_dom.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const document: PageDocument

/** Waits until the table shows `count` rows, the first being `firstId`. */
function waitForList(page: Page, count: number, firstId: string) {
  return page.waitForFunction(
    ([n, id]) => {
      const first = document.querySelector('.runs-table tbody tr')
      const count = document.querySelectorAll('.runs-table tbody tr').length
      return count === n && first?.dataset.runId === id
    },
    [count, firstId] as const,
  )
}

function createdHeaderSort(page: Page) {
  return page.locator('.runs-table thead th', { hasText: 'Created' }).getAttribute('aria-sort')
}

void test('the Created header toggles oldest first; the URL, a reload, paging and filters keep it', async (t) => {
  const { world, page, problems } = await openConsole(t)
  // Started in id order: (createdAt, id) order is start order whatever the clock says.
  for (let i = 0; i < 60; i++)
    await world.engine.start('approval', {}, { runId: `run-${String(i).padStart(2, '0')}` })
  await page.goto(consoleUrl(world))
  await waitForList(page, 50, 'run-59')
  assert.equal(await createdHeaderSort(page), 'descending')

  await page.getByRole('button', { name: 'Created' }).click()
  await waitForList(page, 50, 'run-00')
  assert.match(page.url(), /#\/runs\?sort=created$/)
  assert.equal(await createdHeaderSort(page), 'ascending')

  await page.reload()
  await waitForList(page, 50, 'run-00')
  assert.equal(await createdHeaderSort(page), 'ascending', 'the order, from the URL')

  await page.getByRole('button', { name: 'Next page' }).click()
  await waitForList(page, 10, 'run-50')
  assert.match(page.url(), /sort=created&cursor=/)
  const lastPage = await page
    .locator('.runs-table tbody tr')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')))
  assert.deepEqual(
    lastPage,
    Array.from({ length: 10 }, (_, i) => `run-${50 + i}`),
  )
  await page.getByRole('button', { name: 'Previous page' }).click()
  await waitForList(page, 50, 'run-00')

  await page.getByLabel('Run id contains').fill('run-1')
  await page.getByLabel('Run id contains').press('Enter')
  await waitForList(page, 10, 'run-10')
  assert.match(page.url(), /q=run-1&sort=created$/)

  await page.getByRole('button', { name: 'Created' }).click()
  await waitForList(page, 10, 'run-19')
  assert.match(page.url(), /#\/runs\?q=run-1$/)
  assert.equal(await createdHeaderSort(page), 'descending')
  assertNoProblems(problems)
})

function rowIds(page: Page) {
  return page
    .locator('.runs-table tbody tr')
    .evaluateAll((rows) => rows.map((row) => row.getAttribute('data-run-id')))
}

void test('oldest first, a live run is added at the bottom of the last page while it has room', async (t) => {
  const { world, page, problems } = await openConsole(t)
  for (let i = 0; i < 2; i++) await world.engine.start('approval', {}, { runId: `early-${i}` })
  await page.goto(consoleUrl(world, '#/runs?sort=created'))
  await waitForList(page, 2, 'early-0')
  await page.getByText('Live', { exact: true }).waitFor()
  await world.engine.start('approval', {}, { runId: 'late' })
  await waitForList(page, 3, 'early-0')
  assert.deepEqual(await rowIds(page), ['early-0', 'early-1', 'late'])
  assertNoProblems(problems)
})

void test('oldest first, a live run is not added to a full page with more after it', async (t) => {
  const { world, page, problems } = await openConsole(t)
  for (let i = 0; i < 51; i++)
    await world.engine.start('approval', {}, { runId: `run-${String(i).padStart(2, '0')}` })
  await page.goto(consoleUrl(world, '#/runs?sort=created'))
  await waitForList(page, 50, 'run-00')
  await page.getByText('Live', { exact: true }).waitFor()
  await world.engine.start('approval', {}, { runId: 'late' })
  // Announced once the console handled the event: the row would be in by then.
  await page.locator('#live-region', { hasText: 'late' }).waitFor({ state: 'attached' })
  assert.equal((await rowIds(page)).length, 50)
  assert.equal(await page.locator('tr[data-run-id="late"]').count(), 0)
  await page.getByRole('button', { name: 'Next page' }).click()
  await waitForList(page, 2, 'run-50')
  assert.deepEqual(await rowIds(page), ['run-50', 'late'])
  assertNoProblems(problems)
})
