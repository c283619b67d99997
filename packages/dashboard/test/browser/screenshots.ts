/**
 * One screenshot per view, kept as a test artifact in `artifacts/screenshots/` at the repo
 * root (gitignored). docs/images/dashboard/ holds committed copies for docs/dashboard.md.
 */
import { mkdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'

const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..')
export const SCREENSHOT_DIR = join(REPO_ROOT, 'artifacts', 'screenshots')

/** Saves a viewport screenshot as `artifacts/screenshots/<name>.png`; returns its path. */
export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  const path = join(SCREENSHOT_DIR, `${name}.png`)
  await page.screenshot({ path })
  return path
}
