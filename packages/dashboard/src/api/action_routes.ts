/**
 * One-run actions: retry (requeue a failed run), cancel, signal, continue (a breakpoint);
 * lineage_routes.ts has the ones that make new runs. POST only, behind the CSRF and read-only checks of http/access_control.ts; each answers
 * `{ ok: true, … }`.
 */
import type { Hono } from 'hono'
import { CairnError, ErrorCodes, type Engine } from '@cairn/core'
import type { AppEnv } from '../http/app_env.ts'
import { readJsonObject } from '../http/body.ts'
import { HttpError } from '../http/http_error.ts'
import { jsonResponse } from '../http/responses.ts'
import { onlyKeys, optionalBoolean, optionalString, requiredString } from './body_fields.ts'

export function mountActionRoutes(app: Hono<AppEnv>, engine: Engine): void {
  app.post('/api/runs/:id/retry', async (c) => {
    onlyKeys(await readJsonObject(c.req.raw), [])
    const receipt = await engine.requeue(c.req.param('id'))
    return jsonResponse({ ok: true, positionsReset: receipt.positionsReset })
  })

  app.post('/api/runs/:id/cancel', async (c) => {
    const body = await readJsonObject(c.req.raw)
    onlyKeys(body, ['reason', 'compensate'])
    const reason = optionalString(body, 'reason')
    const compensate = optionalBoolean(body, 'compensate')
    await cancelRun(engine, c.req.param('id'), { reason, compensate })
    return jsonResponse({ ok: true })
  })

  app.post('/api/runs/:id/signal', async (c) => {
    const body = await readJsonObject(c.req.raw)
    onlyKeys(body, ['name', 'payload', 'signalId'])
    const name = requiredString(body, 'name')
    const signalId = optionalString(body, 'signalId')
    const receipt = await engine.signal({ runId: c.req.param('id'), name }, body.payload, {
      signalId,
    })
    return jsonResponse({ ok: true, duplicate: receipt.duplicate })
  })

  app.post('/api/runs/:id/continue', async (c) => {
    const body = await readJsonObject(c.req.raw)
    onlyKeys(body, ['label', 'payload'])
    const label = optionalString(body, 'label')
    const receipt = await engine.continue(c.req.param('id'), { label, note: body.payload })
    return jsonResponse({ ok: true, label: receipt.label, duplicate: receipt.duplicate })
  })
}

/**
 * engine.cancel reports a finished run as E_INVALID_ARGUMENT naming its status; the API
 * answers that as 409 E_RUN_TERMINAL, like every other action on a finished run.
 */
export async function cancelRun(
  engine: Engine,
  runId: string,
  options: { reason?: string; compensate?: boolean },
): Promise<void> {
  try {
    await engine.cancel(runId, options)
  } catch (error) {
    if (CairnError.isCairnError(error) && error.details.code === ErrorCodes.RUN_CANCELLED)
      throw new HttpError(
        409,
        'E_RUN_TERMINAL',
        `run "${runId}" already finished (${String(error.details.status)})`,
      )
    throw error
  }
}
