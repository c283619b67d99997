/**
 * One page of runs for a filter: the engine's listRuns behind the dashboard's signed cursors.
 */
import type { Engine, RunInfo } from '@cairn/core'
import { toListRunsQuery, type RunFilter } from './run_filter.ts'
import { unwrapCursor, wrapCursor } from './signed_cursor.ts'

export interface RunsPage {
  runs: RunInfo[]
  nextCursor: string | null
}

export async function listRunsPage(
  engine: Engine,
  secret: string,
  request: { filter: RunFilter; limit: number; cursor: string | null },
): Promise<RunsPage> {
  const { filter, limit, cursor } = request
  const query = toListRunsQuery(filter)
  query.limit = limit
  if (cursor !== null) query.cursor = unwrapCursor(secret, cursor, filter)
  const page = await engine.listRuns(query)
  return {
    runs: page.runs,
    nextCursor: page.nextCursor === null ? null : wrapCursor(secret, page.nextCursor, filter),
  }
}
