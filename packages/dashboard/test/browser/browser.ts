/**
 * Launches Debian's Chromium through playwright-core for the console's browser tests: headless,
 * a fresh temporary profile per launch (nothing carries over between tests), no network
 * chatter of its own. Each page records what must never happen in the console — uncaught
 * errors, console errors, CSP violations and JavaScript dialogs — for the tests to assert on.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type BrowserContext, type Page } from 'playwright-core'

export const CHROMIUM_PATH = process.env.CAIRN_CHROMIUM ?? '/usr/bin/chromium'

const ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--no-first-run',
]

/** What a page did that the console must never do. */
export interface PageProblems {
  errors: string[]
  consoleErrors: string[]
  cspViolations: string[]
  dialogs: string[]
}

export interface Browser {
  context: BrowserContext
  /** A new page at 1366×768 with its problems recorded. */
  newPage(): Promise<{ page: Page; problems: PageProblems }>
  close(): Promise<void>
}

export async function launchBrowser(
  options: { colorScheme?: 'light' | 'dark' } = {},
): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'cairn-chromium-'))
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: ARGS,
    viewport: { width: 1366, height: 768 },
    colorScheme: options.colorScheme ?? 'light',
  })
  return {
    context,
    newPage: async () => {
      const page = await context.newPage()
      return { page, problems: watchProblems(page) }
    },
    close: async () => {
      await context.close()
      rmSync(profile, { recursive: true, force: true })
    },
  }
}

function watchProblems(page: Page): PageProblems {
  const problems: PageProblems = { errors: [], consoleErrors: [], cspViolations: [], dialogs: [] }
  page.on('pageerror', (error) => problems.errors.push(error.message))
  page.on('console', (message) => {
    if (message.type() !== 'error') return
    const text = message.text()
    // A refused request (401 before login, a 404 probe) is logged by Chromium as a console
    // error; it is the server's answer, not a console fault. A server error (5xx) is a fault.
    if (/Failed to load resource/.test(text) && !/status of 5\d\d/.test(text)) return
    if (/Content Security Policy/i.test(text)) problems.cspViolations.push(text)
    else problems.consoleErrors.push(text)
  })
  page.on('dialog', (dialog) => {
    problems.dialogs.push(`${dialog.type()}: ${dialog.message()}`)
    void dialog.dismiss()
  })
  return problems
}

/** Fails when the page did any of the things it must never do. */
export function assertNoProblems(problems: PageProblems): void {
  const all = [
    ...problems.errors.map((text) => `page error: ${text}`),
    ...problems.consoleErrors.map((text) => `console error: ${text}`),
    ...problems.cspViolations.map((text) => `CSP: ${text}`),
    ...problems.dialogs.map((text) => `dialog: ${text}`),
  ]
  if (all.length > 0) throw new Error(`the console misbehaved:\n${all.join('\n')}`)
}
