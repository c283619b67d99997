/**
 * `GET api/runs/:id/events/:key`: the latest value a run published with `ctx.setEvent(key, …)`
 * (docs/published_state.md), decoded by the engine's codec — so a payload encrypted at rest is
 * plaintext here, for callers the dashboard's auth lets in. A read: no CSRF token needed, and it
 * never waits (poll it, or follow the run's live stream).
 */
import type { Hono } from 'hono'
import type { Engine } from '@cairn/core'
import type { AppEnv } from '../http/app_env.ts'
import { notFound } from '../http/http_error.ts'
import { jsonResponse } from '../http/responses.ts'
import { toJsonValue } from './json_value.ts'
import { runIdParam } from './run_id_param.ts'

export function mountPublishedStateRoute(app: Hono<AppEnv>, engine: Engine): void {
  app.get('/api/runs/:id/events/:key', async (c) => {
    const runId = runIdParam(c)
    const key = c.req.param('key')
    // E_RUN_NOT_FOUND (404) for an unknown run, E_INVALID_ARGUMENT (400) for a key no run can set.
    const value = await engine.getEvent(runId, key)
    // undefined: never set (or set to undefined, which reads the same through getEvent).
    if (value === undefined) throw notFound(`run has published no value for this key`)
    return jsonResponse({ runId, key, value: toJsonValue(value) })
  })
}
