/**
 * `GET <base>/metrics`: the Prometheus exposition of a metrics object (H5's `createMetrics`
 * from ./metrics fits), behind the same authentication as the API. Mounted only when the
 * dashboard is given one.
 */
import type { Hono } from 'hono'
import type { AppEnv } from './app_env.ts'

/** What the route needs of a metrics registry: its text and that text's Content-Type. */
export interface MetricsExposition {
  readonly contentType: string
  render(): Promise<string>
}

export function mountMetricsRoute(app: Hono<AppEnv>, metrics: MetricsExposition): void {
  app.get('/metrics', async () => {
    const text = await metrics.render()
    return new Response(text, {
      headers: { 'content-type': metrics.contentType, 'cache-control': 'no-store' },
    })
  })
}
