/**
 * The console's render figure in `npm run bench` (suite `render`): the dashboard browser
 * test's measurement of a 10,000-step run in Chromium, in its own process. Without Chromium
 * it is skipped with one loud line (an error under CI=true / CAIRN_REQUIRE_SERVICES=1).
 */
import { execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { servicesRequired } from '../../tests/helpers/services.ts'
import { CHROMIUM_PATH } from '../../packages/dashboard/test/browser/browser.ts'

const runner = fileURLToPath(new URL('./run_render.ts', import.meta.url))

export function runRenderSuite(options: { json: boolean }): void {
  if (!existsSync(CHROMIUM_PATH)) {
    const message = `no Chromium at ${CHROMIUM_PATH} (apt-get install chromium, or set CAIRN_CHROMIUM)`
    if (servicesRequired()) throw new Error(message)
    console.warn(`\n!!! SKIPPING THE CONSOLE RENDER FIGURE: ${message}\n`)
    return
  }
  const out = execFileSync(process.execPath, [runner], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const figure = JSON.parse(out.trim().split('\n').at(-1) as string) as Record<string, number>
  if (options.json) {
    console.log(JSON.stringify({ suite: 'render', ...figure }))
    return
  }
  console.log(`\nconsole render, ${figure.steps?.toLocaleString('en-US')}-step run (Chromium, ms)`)
  for (const [key, value] of Object.entries(figure))
    if (key !== 'steps') console.log(`  ${key.padEnd(24)}${String(value).padStart(8)}`)
}
