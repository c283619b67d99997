/**
 * Actions that make a new run from an existing one: `POST api/runs/:id/retry-with-input`
 * `{ input }` (the source's workflow and version, this input) and `POST api/runs/:id/fork`
 * `{ fromSeq, input? }` (reusing the source's results below `fromSeq`). Each answers
 * `{ ok: true, runId }` with the new run; the source is untouched.
 */
import type { Hono } from 'hono'
import type { Engine } from '@cairn/core'
import type { AppEnv } from '../http/app_env.ts'
import { readJsonObject } from '../http/body.ts'
import { badRequest } from '../http/http_error.ts'
import { jsonResponse } from '../http/responses.ts'
import { onlyKeys, optionalInteger } from './body_fields.ts'
import { runIdParam } from './run_id_param.ts'

export function mountLineageRoutes(app: Hono<AppEnv>, engine: Engine): void {
  app.post('/api/runs/:id/retry-with-input', async (c) => {
    const body = await readJsonObject(c.req.raw)
    onlyKeys(body, ['input'])
    if (!('input' in body)) throw badRequest('input is required (null for none)')
    const started = await engine.retryWithInput(runIdParam(c), body.input)
    return jsonResponse({ ok: true, runId: started.runId })
  })

  app.post('/api/runs/:id/fork', async (c) => {
    const body = await readJsonObject(c.req.raw)
    onlyKeys(body, ['fromSeq', 'input'])
    const fromSeq = optionalInteger(body, 'fromSeq')
    if (fromSeq === undefined) throw badRequest('fromSeq is required')
    const options = 'input' in body ? { fromSeq, input: body.input } : { fromSeq }
    const started = await engine.fork(runIdParam(c), options)
    return jsonResponse({ ok: true, runId: started.runId })
  })
}
