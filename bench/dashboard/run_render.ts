/**
 * The console's render figure for a 10,000-step run, in its own process: the dashboard
 * browser test's measurement (packages/dashboard/test/browser/measure_render.ts: a real
 * engine, the real dashboard, Debian's Chromium headless). Prints one JSON line.
 *   node bench/dashboard/run_render.ts
 */
import { measureLargeRunRender } from '../../packages/dashboard/test/browser/measure_render.ts'

const STEPS = 10_000
const figure = await measureLargeRunRender(STEPS)
const round = (ms: number) => Math.round(ms)
console.log(
  JSON.stringify({
    steps: figure.steps,
    timeline_painted_ms: round(figure.timelinePaintedMs),
    all_positions_loaded_ms: round(figure.allPositionsLoadedMs),
    scroll_answered_ms: round(figure.scrollAnsweredMs),
    click_answered_ms: round(figure.clickAnsweredMs),
    rows_in_dom: figure.rowsInDom,
  }),
)
