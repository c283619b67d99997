/**
 * How long a big run's page takes to become useful in a real browser: the timeline's first
 * rows painted, every position loaded, a scroll to the end answered, and a click on a
 * position answered. Figures only — the browser test reports them with t.diagnostic and the
 * bench (`npm run bench`) can call `measureLargeRunRender` directly; nothing asserts on time.
 */
import type { Page } from 'playwright-core'
import { launchBrowser } from './browser.ts'
import { startWorld, type World } from './world.ts'
import type { PageDocument, PageElement, PageRequestAnimationFrame } from './page_dom.ts'

// Inside page.evaluate callbacks only (see page_dom.ts).
declare const document: PageDocument
declare const requestAnimationFrame: PageRequestAnimationFrame

export interface RenderMeasurement {
  steps: number
  /** Navigation start → first timeline row in the DOM (ms, the page's own clock). */
  timelinePaintedMs: number
  /** Navigation start → every page of positions loaded and rendered. */
  allPositionsLoadedMs: number
  /** Scroll to the last position → its row rendered. */
  scrollAnsweredMs: number
  /** Click on the last position's link → the position's page shows its heading. */
  clickAnsweredMs: number
  /** Rows in the DOM after loading: windowing keeps this near the viewport's size. */
  rowsInDom: number
}

/** Measures the run page of `runId` (with `steps` positions) at `consoleUrl` in `page`. */
export async function measureRunRender(
  page: Page,
  consoleUrl: string,
  runId: string,
  steps: number,
): Promise<RenderMeasurement> {
  await page.goto(`${consoleUrl}#/runs/${encodeURIComponent(runId)}`)
  const timelinePaintedMs = await pageTimeWhen(page, '.vr-row')
  const allPositionsLoadedMs = await pageTimeWhen(page, '[data-steps-complete="true"]')
  const rowsInDom = await page.locator('.vr-row').count()
  const scrollAnsweredMs = await page.evaluate(scrollToEnd, steps)
  const started = performance.now()
  await page
    .locator(`.vr-row[aria-rowindex="${steps + 1}"] a`)
    .first()
    .click()
  await page.getByRole('heading', { name: new RegExp(`^${steps - 1}\\. `) }).waitFor()
  const clickAnsweredMs = performance.now() - started
  return {
    steps,
    timelinePaintedMs,
    allPositionsLoadedMs,
    scrollAnsweredMs,
    clickAnsweredMs,
    rowsInDom,
  }
}

/** performance.now() in the page when `selector` first matches, checked every frame. */
async function pageTimeWhen(page: Page, selector: string): Promise<number> {
  const handle = await page.waitForFunction(
    (wanted) => document.querySelector(wanted) !== null && performance.now(),
    selector,
    { polling: 'raf', timeout: 120_000 },
  )
  return Number(await handle.jsonValue())
}

/** Runs in the page: scrolls the timeline to the end and times until the last row exists. */
function scrollToEnd(steps: number): Promise<number> {
  const viewport = document.querySelector('.vr-viewport') as PageElement
  const started = performance.now()
  viewport.scrollTop = viewport.scrollHeight
  return new Promise((resolve) => {
    const check = () => {
      if (document.querySelector(`.vr-row[aria-rowindex="${steps + 1}"]`)) {
        resolve(performance.now() - started)
      } else requestAnimationFrame(check)
    }
    requestAnimationFrame(check)
  })
}

/** Starts a run with `steps` positions in a fresh world and waits for it to complete. */
export async function startLargeRun(world: World, steps: number): Promise<string> {
  const { runId } = await world.engine.start('many-steps', steps)
  await world.engine.waitForRun(runId, { timeoutMs: 600_000 })
  return runId
}

/** The whole measurement in its own world and browser (for the bench). */
export async function measureLargeRunRender(steps = 10_000): Promise<RenderMeasurement> {
  const world = await startWorld()
  const browser = await launchBrowser()
  try {
    const runId = await startLargeRun(world, steps)
    const { page } = await browser.newPage()
    return await measureRunRender(page, world.url, runId, steps)
  } finally {
    await browser.close()
    await world.close()
  }
}
