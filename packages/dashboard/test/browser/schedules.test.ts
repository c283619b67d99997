/**
 * The Schedules page: one row per schedule (id, workflow, cron and zone or every N, overlap,
 * paused, next firings, the last run it started with its status, fired and skipped), reached
 * from the main navigation; Pause, Resume and Trigger through their dialogs; the last run links
 * to its page; a read-only dashboard offers no action and says so.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as delay } from 'node:timers/promises'
import type { Engine } from '@cairn/core'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole } from './harness.ts'
import { saveScreenshot } from './screenshots.ts'

/** Polls until schedule `id` fired `count` windows; fails after 10 s. */
async function firedAtLeast(engine: Engine, id: string, count: number): Promise<void> {
  const deadline = Date.now() + 10_000
  while (((await engine.getSchedule(id))?.fired ?? 0) < count) {
    if (Date.now() > deadline) assert.fail(`schedule ${id} never fired ${count} windows`)
    await delay(20)
  }
}

void test('the Schedules page lists schedules and pauses, resumes and triggers them', async (t) => {
  const { world, page, problems } = await openConsole(t)
  const { engine } = world
  await engine.schedule('approvals', { workflow: 'approval', everyMs: 2000 })
  await engine.schedule('nightly', {
    workflow: 'reminder',
    cron: '0 2 * * *',
    timezone: 'Europe/Paris',
    overlap: 'bufferOne',
  })
  await firedAtLeast(engine, 'approvals', 1)
  await engine.pauseSchedule('approvals')
  const lastRunId = (await engine.getSchedule('approvals'))?.lastRunId as string

  await page.goto(consoleUrl(world, '#/runs'))
  await page
    .getByRole('navigation', { name: 'Main' })
    .getByRole('link', { name: 'Schedules' })
    .click()
  await page.getByRole('heading', { name: 'Schedules' }).waitFor()
  const row = (id: string) => page.getByRole('row').filter({ hasText: id })
  await row('approvals').filter({ hasText: 'waiting' }).waitFor()
  const cells = await row('approvals').getByRole('cell').allTextContents()
  const counts = await engine.getSchedule('approvals')
  assert.deepEqual(cells.slice(0, 6), ['approvals', 'approval', 'every 2 s', 'skip', 'paused', '—'])
  assert.equal(cells[6], `${lastRunId} waiting`)
  assert.deepEqual(cells.slice(7, 9), [String(counts?.fired), String(counts?.skipped)])
  const nightly = await row('nightly').getByRole('cell').allTextContents()
  assert.deepEqual(nightly.slice(0, 5), [
    'nightly',
    'reminder',
    '0 2 * * * (Europe/Paris)',
    'bufferOne',
    'no',
  ])
  assert.match(nightly[5] ?? '', /^(\d{4}-\d\d-\d\d \d\d:\d\d:00){3}$/, 'three next firings')
  assert.deepEqual(nightly.slice(6, 9), ['—', '0', '0'])
  await saveScreenshot(page, 'schedules')

  // Resume, then pause again, through their dialogs.
  await page.getByRole('button', { name: 'Resume schedule approvals' }).click()
  const resume = page.getByRole('dialog', { name: 'Resume this schedule?' })
  await resume.getByRole('button', { name: 'Resume schedule' }).click()
  await resume.waitFor({ state: 'detached' })
  await page.getByRole('button', { name: 'Pause schedule approvals' }).waitFor()
  assert.equal((await engine.getSchedule('approvals'))?.paused, false)
  await page.getByRole('button', { name: 'Pause schedule approvals' }).click()
  const pause = page.getByRole('dialog', { name: 'Pause this schedule?' })
  await pause.getByRole('button', { name: 'Pause schedule' }).click()
  await pause.waitFor({ state: 'detached' })
  await page.getByRole('button', { name: 'Resume schedule approvals' }).waitFor()
  assert.equal((await engine.getSchedule('approvals'))?.paused, true)

  // Trigger: a run now, outside the windows.
  await page.getByRole('button', { name: 'Trigger schedule nightly' }).click()
  const trigger = page.getByRole('dialog', { name: 'Start a run now?' })
  await trigger.getByRole('button', { name: 'Start run' }).click()
  await trigger.waitFor({ state: 'detached' })
  const { runs } = await engine.listRuns({ workflow: 'reminder', limit: 10 })
  assert.equal(runs.length, 1)
  assert.match(runs[0]?.id ?? '', /^sch:nightly:manual:/)

  // The last run links to its page.
  await page.getByRole('link', { name: `Last run of approvals: ${lastRunId}` }).click()
  await page.getByRole('heading', { name: 'approval v1' }).waitFor()
  assert.ok(page.url().endsWith(`#/runs/${encodeURIComponent(lastRunId)}`), page.url())
  assertNoProblems(problems)
})

void test('a read-only dashboard lists schedules with no action', async (t) => {
  const { world, page, problems } = await openConsole(t, { readOnly: true })
  await world.engine.schedule('nightly', { workflow: 'reminder', cron: '0 2 * * *' })
  await page.goto(consoleUrl(world, '#/schedules'))
  await page.getByRole('row').filter({ hasText: 'nightly' }).waitFor()
  await page.getByText('Read-only dashboard: actions are turned off.').waitFor()
  assert.equal(await page.getByRole('button', { name: /schedule nightly/ }).count(), 0)
  assert.equal(await page.getByRole('columnheader', { name: 'Actions' }).count(), 0)
  assertNoProblems(problems)
})
