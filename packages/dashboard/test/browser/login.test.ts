/**
 * Token mode: the console asks for a token, refuses a wrong one, signs in with a right one
 * (an HttpOnly cookie; the page never keeps the token), sends the CSRF header on actions —
 * the server refuses a cookie-authenticated action without it — and signs out.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { assertNoProblems } from './browser.ts'
import { consoleUrl, openConsole } from './harness.ts'
import { saveScreenshot } from './screenshots.ts'
import type { PageStorage } from './page_dom.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const localStorage: PageStorage
declare const sessionStorage: PageStorage

const TOKEN = 'console-test-token-0123456789'

void test('token mode: login, an action with CSRF, logout', async (t) => {
  const { world, page, problems } = await openConsole(t, { tokens: [TOKEN] })
  const { runId } = await world.engine.start('approval', {})

  await page.goto(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor()
  await saveScreenshot(page, 'login')
  const input = page.getByLabel('API token')
  await input.fill('wrong-token')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('alert').filter({ hasText: 'not accepted' }).waitFor()

  await input.fill(TOKEN)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.locator('.view-run h1').waitFor() // back where the login interrupted
  const cookies = await page.context().cookies()
  const session = cookies.find((cookie) => cookie.name === 'cairn_session')
  assert.ok(session?.httpOnly, 'the session cookie must be HttpOnly')
  assert.equal(await page.evaluate(() => localStorage.length + sessionStorage.length), 0)

  await page.getByRole('button', { name: 'Cancel', exact: true }).click()
  const dialog = page.getByRole('dialog', { name: 'Cancel this run?' })
  await dialog.getByLabel('Reason (optional)').fill('not needed')
  await dialog.getByRole('button', { name: 'Cancel run' }).click()
  await dialog.waitFor({ state: 'detached' })
  assert.equal((await world.engine.getRun(runId))?.status, 'cancelled')

  await page.getByRole('button', { name: 'Sign out' }).click()
  await page.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor()
  const after = await page.context().cookies()
  assert.equal(after.find((cookie) => cookie.name === 'cairn_session')?.value ?? '', '')
  problems.consoleErrors = problems.consoleErrors.filter((text) => !/401/.test(text))
  assertNoProblems(problems)
})

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const location: { search: string; hash: string }

void test('a token in the address (as `cairn dashboard` prints it) signs in, then leaves it', async (t) => {
  const { world, browser, page, problems } = await openConsole(t, { tokens: [TOKEN] })
  const { runId } = await world.engine.start('approval', {})
  const address = new URL(consoleUrl(world, `#/runs/${encodeURIComponent(runId)}`))
  address.searchParams.set('token', TOKEN)
  await page.goto(address.toString())
  await page.locator('.view-run h1').waitFor() // no login page: straight to the route
  const shown = await page.evaluate(() => ({ search: location.search, hash: location.hash }))
  assert.deepEqual(shown, { search: '', hash: `#/runs/${encodeURIComponent(runId)}` })
  assert.ok(await page.getByRole('button', { name: 'Sign out' }).isVisible(), 'signed in')
  const cookies = await page.context().cookies()
  assert.ok(cookies.find((cookie) => cookie.name === 'cairn_session')?.httpOnly)
  assert.equal(await page.evaluate(() => localStorage.length + sessionStorage.length), 0)

  // A wrong token in the address: dropped too, and the login page asks for one.
  const { page: second, problems: secondProblems } = await browser.newPage()
  second.setDefaultTimeout(15_000)
  const wrong = new URL(consoleUrl(world, '#/runs'))
  wrong.searchParams.set('token', 'not-the-token-at-all')
  await second.goto(wrong.toString())
  await second.getByRole('heading', { name: 'Sign in to Cairn' }).waitFor()
  assert.equal(await second.evaluate(() => location.search), '')
  for (const seen of [problems, secondProblems]) {
    seen.consoleErrors = seen.consoleErrors.filter((text) => !/401/.test(text))
    assertNoProblems(seen)
  }
})
