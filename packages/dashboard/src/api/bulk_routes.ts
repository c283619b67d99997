/**
 * Bulk actions: `POST api/bulk/retry` (failed and dead runs) and `api/bulk/cancel` (open runs) over
 * the runs a filter matches, at most `limit` of them (clamped to the dashboard's bulkLimit):
 * the first `limit` in the list order `sort` (newest first by default, like the list).
 * The runs are collected first, then acted on one by one: one run's failure is reported
 * in `failed` and the others go on. `dryRun` only counts.
 * Each run the store lists is checked against the filter again here (the live list's
 * matcher): a store that ignored a key (say claimableBefore) must not turn "cancel the stuck
 * runs" into "cancel every open run". Runs that fail the check are not matched.
 *
 * `POST api/bulk/delete` is engine.purgeRuns (docs/retention.md): finished runs of the filter,
 * whose `status` is required and terminal only, deleted oldest first with their subtrees, at
 * most `limit` (clamped to bulkLimit) in one request; runs an open run still needs are kept
 * and reported (`refused`, `refusals`). `dryRun` counts what it would take, as above.
 */
import type { Hono } from 'hono'
import {
  CairnError,
  isTerminalStatus,
  RUN_STATUSES,
  type Engine,
  type PurgeFilter,
  type RunStatus,
  type TerminalStatus,
} from '@cairn/core'
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

const TERMINAL_STATUSES = RUN_STATUSES.filter(isTerminalStatus)
/** Filter keys that select open runs only: meaningless, and refused, in a deletion. */
const OPEN_RUN_KEYS = ['stuckFor', 'claimableBefore', 'singletonKey'] as const

export function mountBulkRoutes(app: Hono<AppEnv>, options: ResolvedOptions): void {
  mountBulkDelete(app, options)
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

function mountBulkDelete(app: Hono<AppEnv>, options: ResolvedOptions): void {
  app.post('/api/bulk/delete', async (c) => {
    const body = await readJsonObject(c.req.raw)
    onlyKeys(body, ['filter', 'limit', 'dryRun'])
    if (body.filter === undefined)
      throw badRequest('filter is required, with status: the finished runs to delete')
    const filter = filterFromObject(body.filter)
    const statuses = (filter.status ?? []) as RunStatus[]
    if (statuses.length === 0)
      throw badRequest(
        `filter.status is required: the finished runs to delete (${TERMINAL_STATUSES.join(', ')})`,
      )
    const open = statuses.find((status) => !isTerminalStatus(status))
    if (open !== undefined)
      throw badRequest(
        `filter.status ${open} is not a finished status: only ${TERMINAL_STATUSES.join(', ')} runs are deleted`,
      )
    const openKey = OPEN_RUN_KEYS.find((key) => filter[key] !== undefined)
    if (openKey !== undefined)
      throw badRequest(`filter.${openKey} selects open runs: only finished runs are deleted`)
    const limit = clampInt(
      optionalInteger(body, 'limit') ?? options.bulkLimit,
      1,
      options.bulkLimit,
    )
    const dryRun = optionalBoolean(body, 'dryRun') === true
    const { engine } = options
    if (dryRun) {
      // Oldest first, as the purge takes them.
      const list = { filter, sort: 'created' as const }
      const { runIds, truncated } = await collect(engine, list, { statuses }, limit)
      return jsonResponse({ ok: true, matched: runIds.length, truncated, limit })
    }
    const report = await engine.purgeRuns({ ...purgeFilter(filter, engine), limit })
    return jsonResponse({ ok: true, ...report, limit })
  })
}

/** The engine's purge filter of a dashboard filter with finished statuses only. */
function purgeFilter(filter: RunFilter, engine: Engine): PurgeFilter {
  const { status, claimableBefore: _c, admissionKey: _a, ...rest } = toListRunsQuery(
    filter,
    engine.options.clock.now(),
  )
  return { ...rest, status: [status ?? []].flat() as TerminalStatus[] }
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
