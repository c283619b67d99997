/**
 * `GET <base>/metrics`: the Prometheus exposition (docs/metrics.md), behind the same
 * authentication as the API. Mounted only when the dashboard's `metrics` option asks.
 */
import type { Hono } from 'hono'
import type { Engine } from '@cairn/core'
import { createMetrics } from '../metrics/index.ts'
import type { AppEnv } from './app_env.ts'

/** What the route needs of a metrics registry: its text and that text's Content-Type. */
export interface MetricsExposition {
  readonly contentType: string
  render(): Promise<string>
}

/**
 * Mounts the route for the `metrics` option; returns what `close()` must release (the metrics
 * the dashboard made itself; an app's own object stays the app's).
 */
export function mountMetrics(
  app: Hono<AppEnv>,
  engine: Engine,
  option: boolean | MetricsExposition | undefined,
): () => void {
  if (option === undefined || option === false) return () => {}
  if (option === true) {
    const own = createMetrics(engine)
    mountMetricsRoute(app, own)
    return () => own.close()
  }
  mountMetricsRoute(app, option)
  return () => {}
}

function mountMetricsRoute(app: Hono<AppEnv>, metrics: MetricsExposition): void {
  app.get('/metrics', async () => {
    const text = await metrics.render()
    return new Response(text, {
      headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' },
    })
  })
}
