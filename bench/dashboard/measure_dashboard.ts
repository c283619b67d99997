/**
 * The dashboard figures on one seeded store: an engine that never drives, the real
 * dashboard fetch handler with a token, and each scenario's p50/p95.
 */
import { Engine, silentLogger } from '@cairn/core'
import type { StateStore } from '@cairn/core/contracts'
import { createDashboard } from '@cairn/dashboard'
import { measureLatency, type Latency } from './latency.ts'
import type { RunRow } from './seed_plan.ts'
import { TOKEN, scenarios, type Get } from './scenarios.ts'

const ORIGIN = 'http://dashboard.bench'
const SAMPLES = 200
const WARMUP = 20

export async function measureDashboard(
  store: StateStore,
  runs: readonly RunRow[],
): Promise<Record<string, Latency | null>> {
  const engine = new Engine({ store, logger: silentLogger })
  const dashboard = createDashboard({ engine, auth: { tokens: [TOKEN] }, development: false })
  const get: Get = async (path) => {
    const response = await dashboard.fetch(
      new Request(`${ORIGIN}${path}`, { headers: { authorization: `Bearer ${TOKEN}` } }),
    )
    const body = await response.text()
    if (notServed(response.status, body)) throw new RouteMissing(path)
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${body}`)
    return JSON.parse(body) as unknown
  }
  try {
    const figures: Record<string, Latency | null> = {}
    for (const scenario of await scenarios(get, runs))
      figures[scenario.name] = await measureLatency((i) => scenario.call(get, i), {
        warmup: WARMUP,
        samples: SAMPLES,
      }).catch((error: unknown) => {
        // A route this dashboard does not serve (yet): no figure, rather than no bench.
        if (error instanceof RouteMissing) return null
        throw error
      })
    return figures
  } finally {
    await dashboard.close()
    await engine.close()
  }
}

class RouteMissing extends Error {}

/** A route or filter this dashboard build does not have (404 E_NOT_FOUND, 400 unknown filter). */
function notServed(status: number, body: string): boolean {
  return (
    (status === 404 && body.includes('"E_NOT_FOUND"')) ||
    (status === 400 && body.includes('unknown filter'))
  )
}
