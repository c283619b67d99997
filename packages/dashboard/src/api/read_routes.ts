/**
 * The read API: `GET api/runs`, `api/runs/:id`, `api/runs/:id/steps`, `api/runs/:id/logs`
 * (what steps logged and their progress), `api/runs/:id/history` (the recorded history as a
 * file, history_download.ts), `api/workflows`,
 * `api/workers` (the remote-step fleet on the engine's transports), `api/queues` (the named
 * queues this engine registered, as the store sees them), `api/singletons` (the singleton keys
 * with open runs, singleton_keys.ts), `api/retention` (this engine's retention policies,
 * docs/retention.md).
 * Reads never change anything.
 */
import type { Context, Hono } from 'hono'
import type { ResolvedOptions } from '../options.ts'
import type { AppEnv } from '../http/app_env.ts'
import { jsonResponse } from '../http/responses.ts'
import { intParam } from './limits.ts'
import { listRunsPage } from './list_runs.ts'
import { loadRunDetail } from './run_detail.ts'
import { filterFromSearchParams, toListRunsQuery } from './run_filter.ts'
import { sortFromSearchParams } from './run_sort.ts'
import { runSummary, stepView } from './run_views.ts'
import { logsPage } from './step_log_views.ts'
import { historyDownload } from './history_download.ts'
import { RunNotFoundError } from '@cairn/core'
import { runIdParam } from './run_id_param.ts'
import { singletonKeysPage } from './singleton_keys.ts'

export function mountReadRoutes(app: Hono<AppEnv>, options: ResolvedOptions): void {
  const { engine, secret } = options

  app.get('/api/runs', async (c) => {
    const params = new URL(c.req.url).searchParams
    const filter = filterFromSearchParams(params, ['limit', 'cursor', 'sort'])
    const sort = sortFromSearchParams(params)
    const limit = intParam(params.get('limit'), 'limit', { min: 1, max: 200, fallback: 50 })
    const cursor = params.get('cursor')
    const page = await listRunsPage(engine, secret, { filter, sort, limit, cursor })
    return jsonResponse({ runs: page.runs.map(runSummary), nextCursor: page.nextCursor })
  })

  app.get('/api/runs/:id', async (c) => {
    return jsonResponse({ run: await loadRunDetail(engine, runIdParam(c)) })
  })

  app.get('/api/runs/:id/steps', async (c) => {
    const { fromSeq, limit } = positionPage(new URL(c.req.url).searchParams)
    const runId = await existingRunId(c)
    const page = await engine.getStepsPage(runId, { fromSeq, limit })
    return jsonResponse({ steps: page.steps.map(stepView), nextFromSeq: page.nextFromSeq })
  })

  // Only positions that logged or reported progress have a record: the page is sparse, so
  // `nextFromSeq` follows the last record of a full page.
  app.get('/api/runs/:id/logs', async (c) => {
    const params = new URL(c.req.url).searchParams
    const { fromSeq } = positionPage(params)
    // A record holds up to 1,000 lines (1 MB of text): pages are short, and bounded in size.
    const limit = intParam(params.get('limit'), 'limit', { min: 1, max: 100, fallback: 50 })
    const runId = await existingRunId(c)
    return jsonResponse(logsPage(await engine.getStepLogs(runId, { fromSeq, limit }), limit))
  })

  app.get('/api/runs/:id/history', async (c) => historyDownload(engine, runIdParam(c)))

  app.get('/api/facets', async (c) => {
    const filter = filterFromSearchParams(new URL(c.req.url).searchParams, [])
    const facets = await engine.facetRuns(toListRunsQuery(filter, engine.options.clock.now()))
    return jsonResponse({ byStatus: facets.byStatus, byWorkflow: facets.byWorkflow })
  })

  app.get('/api/workflows', () => {
    const workflows = engine
      .registeredWorkflows()
      .map(({ workflow, version }) => ({ workflow, version }))
    return jsonResponse({ workflows })
  })

  app.get('/api/workers', async () => {
    return jsonResponse({ workers: await engine.listWorkers() })
  })

  app.get('/api/queues', async () => {
    return jsonResponse({ queues: await engine.queueStats(), now: engine.options.clock.now() })
  })

  app.get('/api/singletons', async (c) => {
    return jsonResponse(await singletonKeysPage(engine, new URL(c.req.url).searchParams))
  })

  /** The `:id` run's id; E_RUN_NOT_FOUND (404) when there is no such run. */
  async function existingRunId(c: Context<AppEnv>): Promise<string> {
    const runId = runIdParam(c)
    if ((await engine.getRun(runId)) === null)
      throw new RunNotFoundError(`no run with id "${runId}"`)
    return runId
  }

  app.get('/api/retention', () => {
    const retention = engine.options.retention
    const policies = (retention?.policies ?? []).map((policy) => ({
      name: policy.name,
      workflow: policy.workflow ?? null,
      statuses: [...policy.statuses],
      maxAgeMs: policy.maxAgeMs,
      maxCount: policy.maxCount,
    }))
    return jsonResponse({ policies, intervalMs: retention?.intervalMs ?? null })
  })
}

/** `fromSeq` (default 0) and `limit` (1..1000, default 200) of a read by position. */
function positionPage(params: URLSearchParams): { fromSeq: number; limit: number } {
  return {
    fromSeq: intParam(params.get('fromSeq'), 'fromSeq', {
      min: 0,
      max: Number.MAX_SAFE_INTEGER,
      fallback: 0,
    }),
    limit: intParam(params.get('limit'), 'limit', { min: 1, max: 1000, fallback: 200 }),
  }
}
