/**
 * One real world (engine + dashboard) and one browser per test, both closed after it, and the
 * waits the console tests share.
 */
import type { TestContext } from 'node:test'
import type { Page } from 'playwright-core'
import { launchBrowser, type Browser, type PageProblems } from './browser.ts'
import { startWorld, type World, type WorldOptions } from './world.ts'

export interface ConsoleSetup {
  world: World
  browser: Browser
  page: Page
  problems: PageProblems
}

export async function openConsole(
  t: TestContext,
  options: WorldOptions & { colorScheme?: 'light' | 'dark' } = {},
): Promise<ConsoleSetup> {
  const world = await startWorld(options)
  t.after(() => world.close())
  const browser = await launchBrowser({ colorScheme: options.colorScheme })
  t.after(() => browser.close())
  const { page, problems } = await browser.newPage()
  page.setDefaultTimeout(15_000)
  return { world, browser, page, problems }
}

/** The console's address of a route (`#/runs/<id>` …). */
export function consoleUrl(world: World, hash = ''): string {
  return `${world.url}${hash}`
}

/** Waits until the run ended (any terminal status) and returns its status. */
export async function settle(world: World, runId: string): Promise<string> {
  const outcome = await world.engine.waitForRun(runId, { timeoutMs: 10_000 })
  return outcome.status
}

/** The text of the run page's header status badge. */
export function headerStatus(page: Page) {
  return page.locator('.view-run .view-header .status')
}
