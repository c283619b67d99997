/**
 * One page of runs for a filter in a sort order: the engine's listRuns behind the dashboard's
 * signed cursors. A cursor binds the filter as written (`stuckFor=5`, not its resolved cutoff),
 * so each page resolves `stuckFor` again at the engine's current time.
 */
import type { Engine, RunInfo } from '@cairn/core'
import { toListRunsQuery, type RunFilter } from './run_filter.ts'
import { toListOrder, type RunSort } from './run_sort.ts'
import { unwrapCursor, wrapCursor } from './signed_cursor.ts'

export interface RunsPage {
  runs: RunInfo[]
  nextCursor: string | null
}

export async function listRunsPage(
  engine: Engine,
  secret: string,
  request: { filter: RunFilter; sort: RunSort; limit: number; cursor: string | null },
): Promise<RunsPage> {
  const { filter, sort, limit, cursor } = request
  const query = toListRunsQuery(filter, engine.options.clock.now())
  query.limit = limit
  query.order = toListOrder(sort)
  if (cursor !== null) query.cursor = unwrapCursor(secret, cursor, filter, sort)
  const page = await engine.listRuns(query)
  return {
    runs: page.runs,
    nextCursor: page.nextCursor === null ? null : wrapCursor(secret, page.nextCursor, filter, sort),
  }
}
