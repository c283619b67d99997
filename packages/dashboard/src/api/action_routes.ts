/**
 * One-run actions: retry (requeue a failed run), cancel, signal, continue (a breakpoint),
 * delete (a finished run with its child subtree, engine.deleteRun: 409 E_RUN_NOT_DELETABLE
 * naming the open run that blocks it); lineage_routes.ts has the ones that make new runs.
 * POST only, behind the CSRF and read-only checks of http/access_control.ts; each answers
 * `{ ok: true, … }`.
 */
import type { Hono } from 'hono'
import type { Engine } from '@cairn/core'
import type { AppEnv } from '../http/app_env.ts'
import { readJsonObject } from '../http/body.ts'
import { jsonResponse } from '../http/responses.ts'
import { onlyKeys, optionalBoolean, optionalString, requiredString } from './body_fields.ts'
import { runIdParam } from './run_id_param.ts'

export function mountActionRoutes(app: Hono<AppEnv>, engine: Engine): void {
  app.post('/api/runs/:id/retry', async (c) => {
    onlyKeys(await readJsonObject(c.req.raw), [])
    const receipt = await engine.requeue(runIdParam(c))
    return jsonResponse({ ok: true, positionsReset: receipt.positionsReset })
  })

  app.post('/api/runs/:id/cancel', async (c) => {
    const body = await readJsonObject(c.req.raw)
    onlyKeys(body, ['reason', 'compensate'])
    const reason = optionalString(body, 'reason')
    const compensate = optionalBoolean(body, 'compensate')
    await engine.cancel(runIdParam(c), { reason, compensate })
    return jsonResponse({ ok: true })
  })

  app.post('/api/runs/:id/delete', async (c) => {
    onlyKeys(await readJsonObject(c.req.raw), [])
    const { runs } = await engine.deleteRun(runIdParam(c))
    return jsonResponse({ ok: true, runs })
  })

  app.post('/api/runs/:id/signal', async (c) => {
    const body = await readJsonObject(c.req.raw)
    onlyKeys(body, ['name', 'payload', 'signalId'])
    const name = requiredString(body, 'name')
    const signalId = optionalString(body, 'signalId')
    const receipt = await engine.signal({ runId: runIdParam(c), name }, body.payload, {
      signalId,
    })
    return jsonResponse({ ok: true, duplicate: receipt.duplicate })
  })

  app.post('/api/runs/:id/continue', async (c) => {
    const body = await readJsonObject(c.req.raw)
    onlyKeys(body, ['label', 'payload'])
    const label = optionalString(body, 'label')
    const receipt = await engine.continue(runIdParam(c), { label, note: body.payload })
    return jsonResponse({ ok: true, label: receipt.label, duplicate: receipt.duplicate })
  })
}
