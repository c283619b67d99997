/**
 * Bulk actions: `POST api/bulk/retry` (failed and dead runs) and `api/bulk/cancel` (open runs) over
 * the runs a filter matches, at most `limit` of them (clamped to the dashboard's bulkLimit):
 * the first `limit` in the list order `sort` (newest first by default, like the list).
 * The runs are collected first, then acted on one by one: one run's failure is reported
 * in `failed` and the others go on. `dryRun` only counts.
 * Each run the store lists is checked against the filter again here (the live list's
 * matcher): a store that ignored a key (say claimableBefore) must not turn "cancel the stuck
 * runs" into "cancel every open run". Runs that fail the check are not matched.
 */
import type { Hono } from 'hono'
import { CairnError, type Engine, type RunStatus } from '@cairn/core'
import type { ResolvedOptions } from '../options.ts'
import type { AppEnv } from '../http/app_env.ts'
import { readJsonObject } from '../http/body.ts'
import { badRequest, toHttpError } from '../http/http_error.ts'
import { jsonResponse } from '../http/responses.ts'
import { onlyKeys, optionalBoolean, optionalInteger, optionalString } from './body_fields.ts'
import { filterFromObject, toListRunsQuery, type RunFilter } from './run_filter.ts'
import { checkSort, toListOrder, type RunSort } from './run_sort.ts'
import { clampInt } from '../options.ts'
import { runMatches } from '../stream/run_matcher.ts'

const PAGE = 500

interface BulkAction {
  /** The statuses the action applies to; the filter's statuses are narrowed to these. */
  statuses: readonly RunStatus[]
  apply(engine: Engine, runId: string, body: Record<string, unknown>): Promise<unknown>
}

const ACTIONS: Readonly<Record<string, BulkAction>> = {
  retry: { statuses: ['failed', 'dead'], apply: (engine, runId) => engine.requeue(runId) },
  cancel: {
    statuses: ['queued', 'pending', 'running', 'waiting', 'blocked', 'parked'],
    apply: (engine, runId, body) =>
      engine.cancel(runId, { reason: optionalString(body, 'reason') }),
  },
}

export function mountBulkRoutes(app: Hono<AppEnv>, options: ResolvedOptions): void {
  for (const [name, action] of Object.entries(ACTIONS)) {
    app.post(`/api/bulk/${name}`, async (c) => {
      const body = await readJsonObject(c.req.raw)
      onlyKeys(body, ['filter', 'sort', 'limit', 'reason', 'dryRun'])
      // Explicit, always: `{}` says "every run" on purpose; a missing filter says nothing.
      if (body.filter === undefined)
        throw badRequest('filter is required: the runs to act on ({} for every matching run)')
      const filter = filterFromObject(body.filter)
      const sort = checkSort(body.sort)
      optionalString(body, 'reason')
      const limit = clampInt(
        optionalInteger(body, 'limit') ?? options.bulkLimit,
        1,
        options.bulkLimit,
      )
      const { runIds, truncated } = await collect(options.engine, { filter, sort }, action, limit)
      if (optionalBoolean(body, 'dryRun') === true)
        return jsonResponse({
          ok: true,
          matched: runIds.length,
          applied: 0,
          failed: [],
          truncated,
          limit,
        })
      const failed = await applyEach(options, runIds, (runId) =>
        action.apply(options.engine, runId, body),
      )
      const applied = runIds.length - failed.length
      return jsonResponse({ ok: true, matched: runIds.length, applied, failed, truncated, limit })
    })
  }
}

/**
 * The ids of the first `limit` matching runs in the list's order, and whether more match:
 * with a cap, the sort decides which runs are taken (the newest, or the oldest).
 */
async function collect(
  engine: Engine,
  list: { filter: RunFilter; sort: RunSort },
  action: Pick<BulkAction, 'statuses'>,
  limit: number,
): Promise<{ runIds: string[]; truncated: boolean }> {
  const { filter, sort } = list
  const filterQuery = toListRunsQuery(filter, engine.options.clock.now())
  const statuses = filterQuery.status === undefined ? undefined : [filterQuery.status].flat()
  const wanted = action.statuses.filter((s) => statuses?.includes(s) ?? true)
  if (wanted.length === 0) return { runIds: [], truncated: false }
  const query = { ...filterQuery, status: [...wanted], order: toListOrder(sort) }
  const runIds: string[] = []
  let cursor: string | undefined
  for (;;) {
    const page = await engine.listRuns({
      ...query,
      cursor,
      limit: Math.min(PAGE, limit - runIds.length + 1),
    })
    for (const run of page.runs) {
      if (!runMatches(run, query)) continue
      if (runIds.length === limit) return { runIds, truncated: true }
      runIds.push(run.id)
    }
    if (page.nextCursor === null) return { runIds, truncated: false }
    cursor = page.nextCursor
  }
}

async function applyEach(
  options: ResolvedOptions,
  runIds: readonly string[],
  apply: (runId: string) => Promise<unknown>,
): Promise<Array<{ runId: string; code: string }>> {
  const failed: Array<{ runId: string; code: string }> = []
  for (const runId of runIds) {
    try {
      await apply(runId)
    } catch (error) {
      failed.push({ runId, code: codeOf(options, error) })
    }
  }
  return failed
}

function codeOf(options: ResolvedOptions, error: unknown): string {
  const known = toHttpError(error)
  if (known !== null) return known.code
  if (CairnError.isCairnError(error)) return error.code
  options.logger.error(
    { errorName: error instanceof Error ? error.name : typeof error },
    'cairn dashboard: a bulk action failed on one run',
  )
  return 'E_INTERNAL'
}
