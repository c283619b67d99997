/**
 * Deleting a run from the console (docs/retention.md): Delete is offered on a finished run and
 * confirmed in a dialog, after which the page says the run is gone and links back to the list;
 * a run an open parent still needs is refused in the dialog, naming the parent, and nothing
 * changes; an open run and a read-only dashboard offer no Delete. The Schedules page lists the
 * engine's retention policies.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole, settle } from './harness.ts'
import { saveScreenshot } from './screenshots.ts'

void test('delete a finished run: confirmed, then the page says it is gone', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { runId } = await world.engine.start('batch', 2)
  assert.equal(await settle(world, runId), 'completed')
  const { runs: children } = await world.engine.listRuns({ parentRunId: runId })
  assert.equal(children.length, 1)
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  await page.getByRole('button', { name: 'Delete', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Delete this run?' })
  await dialog.getByText(/cannot be undone/).waitFor()
  // Cancel first: nothing is deleted.
  await dialog.getByRole('button', { name: 'Cancel' }).click()
  await dialog.waitFor({ state: 'detached' })
  assert.notEqual(await world.engine.getRun(runId), null)

  await page.getByRole('button', { name: 'Delete', exact: true }).click()
  await saveScreenshot(page, 'dialog-delete')
  await dialog.getByRole('button', { name: 'Delete run' }).click()
  await dialog.waitFor({ state: 'detached' })
  await page.getByRole('heading', { name: 'Run deleted' }).waitFor()
  await saveScreenshot(page, 'run-deleted')
  assert.equal(
    await page.locator('.view-run .notice').innerText(),
    `Run ${runId} deleted with 1 descendant run(s).`,
  )
  assert.equal(await page.locator('.timeline-section').count(), 0, 'no timeline left')
  assert.equal(await world.engine.getRun(runId), null)
  assert.equal(await world.engine.getRun(children[0]?.id as string), null)
  await page.getByRole('link', { name: 'Back to the runs' }).click()
  await page.getByRole('heading', { name: 'Runs' }).waitFor()
  assertNoProblems(problems)
})

void test('a run its open parent still needs: the refusal names the parent, nothing changes', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { runId: parent } = await world.engine.start('supervisor', null)
  const deadline = Date.now() + 10_000
  while ((await world.engine.getRun(parent))?.status !== 'waiting') {
    if (Date.now() > deadline) assert.fail('the supervisor never waited')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const child = (await world.engine.listRuns({ parentRunId: parent })).runs[0]?.id as string
  assert.equal(await settle(world, child), 'completed')
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(child)}`))
  await page.getByRole('button', { name: 'Delete', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Delete this run?' })
  await dialog.getByRole('button', { name: 'Delete run' }).click()
  const alert = dialog.getByRole('alert').filter({ hasText: /^E_RUN_NOT_DELETABLE: / })
  await alert.waitFor()
  await saveScreenshot(page, 'dialog-delete-refused')
  assert.match(await alert.innerText(), new RegExp(`its parent "${parent}" is waiting`))
  await page.keyboard.press('Escape')
  await dialog.waitFor({ state: 'detached' })
  assert.equal((await world.engine.getRun(child))?.status, 'completed', 'not deleted')
  // The open parent itself is offered no Delete.
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(parent)}`))
  await page.getByRole('button', { name: 'Send signal' }).waitFor()
  assert.equal(await page.getByRole('button', { name: 'Delete', exact: true }).count(), 0)
  problems.consoleErrors = problems.consoleErrors.filter((text) => !/409/.test(text))
  assertNoProblems(problems)
})

void test('a read-only dashboard offers no Delete', async (t) => {
  const { world, page, problems } = await openConsole(t, { readOnly: true })
  const { runId } = await world.engine.start('leaf', { size: 1 })
  assert.equal(await settle(world, runId), 'completed')
  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  await page.getByText('Read-only dashboard: actions are turned off.').waitFor()
  assert.equal(await page.getByRole('button', { name: 'Delete', exact: true }).count(), 0)
  assertNoProblems(problems)
})

void test('the Schedules page lists the retention policies, or says there are none', async (t) => {
  const { world, page, problems } = await openConsole(t, {
    retention: {
      policies: [
        { statuses: ['completed'], maxAge: '7 days' },
        { name: 'failed-orders', workflow: 'ship-order', statuses: ['failed'], maxCount: 500 },
      ],
      interval: '5m',
    },
  })
  await page.goto(consoleUrl(world, '#/schedules'))
  const section = page.getByRole('region', { name: 'Retention' })
  await section.getByRole('table').waitFor()
  const rows = await section
    .getByRole('row')
    .evaluateAll((trs) =>
      trs.map((tr) => [...tr.querySelectorAll('th, td')].map((cell) => cell.textContent)),
    )
  assert.deepEqual(rows, [
    ['Policy', 'Workflow', 'Statuses', 'Max age', 'Keeps newest'],
    ['*:completed', 'every workflow', 'completed', '7 d', '—'],
    ['failed-orders', 'ship-order', 'failed', '—', '500'],
  ])
  await section.getByText(/sweeps every 5 min/).waitFor()
  await saveScreenshot(page, 'schedules-retention')
  assertNoProblems(problems)

  const bare = await openConsole(t)
  await bare.page.goto(consoleUrl(bare.world, '#/schedules'))
  await bare.page
    .getByRole('region', { name: 'Retention' })
    .getByText(/^No retention policies/)
    .waitFor()
  assertNoProblems(bare.problems)
})
