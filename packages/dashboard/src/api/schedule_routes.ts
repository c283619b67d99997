/**
 * Schedules (docs/schedules.md): `GET api/schedules` (a page in id order: `after` the last id
 * of the previous page, `limit` 1..200, default 50; `nextAfter` when the page is full),
 * `GET api/schedules/:id`, and the actions `POST api/schedules/:id/pause`, `/resume` and
 * `/trigger` — POST only, behind the CSRF and read-only checks of http/access_control.ts like
 * the run actions; each answers `{ ok: true, … }`. An unknown id is 404 E_SCHEDULE_NOT_FOUND.
 * Schedule ids travel in paths like run ids (run_id_param.ts).
 */
import type { Hono } from 'hono'
import { ScheduleNotFoundError, type Engine } from '@cairn/core'
import type { AppEnv } from '../http/app_env.ts'
import { readJsonObject } from '../http/body.ts'
import { badRequest } from '../http/http_error.ts'
import { jsonResponse } from '../http/responses.ts'
import { onlyKeys } from './body_fields.ts'
import { intParam } from './limits.ts'
import { runIdParam } from './run_id_param.ts'
import { scheduleView } from './schedule_views.ts'

const LIST_KEYS = ['after', 'limit']

export function mountScheduleRoutes(app: Hono<AppEnv>, engine: Engine): void {
  app.get('/api/schedules', async (c) => {
    const params = new URL(c.req.url).searchParams
    for (const name of new Set(params.keys()))
      if (!LIST_KEYS.includes(name) || params.getAll(name).length > 1)
        throw badRequest(
          LIST_KEYS.includes(name)
            ? `${name} may be given once`
            : `unknown parameter "${name.slice(0, 40)}" (known: ${LIST_KEYS.join(', ')})`,
        )
    const limit = intParam(params.get('limit'), 'limit', { min: 1, max: 200, fallback: 50 })
    const after = params.get('after') ?? ''
    const page = await engine.listSchedules({ ...(after === '' ? {} : { after }), limit })
    const schedules = await Promise.all(page.map((info) => scheduleView(engine, info)))
    const nextAfter = page.length === limit ? (page.at(-1)?.id ?? null) : null
    return jsonResponse({ schedules, nextAfter })
  })

  app.get('/api/schedules/:id', async (c) => {
    const id = runIdParam(c)
    const info = await engine.getSchedule(id)
    if (info === null)
      throw new ScheduleNotFoundError(`no schedule with id "${id}"`, {
        details: { scheduleId: id },
      })
    return jsonResponse({ schedule: await scheduleView(engine, info) })
  })

  app.post('/api/schedules/:id/pause', async (c) => {
    onlyKeys(await readJsonObject(c.req.raw), [])
    const info = await engine.pauseSchedule(runIdParam(c))
    return jsonResponse({ ok: true, schedule: await scheduleView(engine, info) })
  })

  app.post('/api/schedules/:id/resume', async (c) => {
    onlyKeys(await readJsonObject(c.req.raw), [])
    const info = await engine.resumeSchedule(runIdParam(c))
    return jsonResponse({ ok: true, schedule: await scheduleView(engine, info) })
  })

  app.post('/api/schedules/:id/trigger', async (c) => {
    onlyKeys(await readJsonObject(c.req.raw), [])
    const { runId } = await engine.triggerSchedule(runIdParam(c))
    return jsonResponse({ ok: true, runId })
  })
}
