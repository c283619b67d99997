/** Reads: getRun, loadCheckpoints, loadCheckpointPage, listRuns. */
import type {
  CheckpointPage,
  CheckpointRecord,
  InboxMessage,
  ListRunsQuery,
  RunFacetQuery,
  RunPage,
  RunRecord,
  RunStatus,
  SearchAttributes,
} from '../../contracts/index.ts'
import { InvalidArgumentError } from '../../errors/index.ts'
import { parseSearchFilter } from '../../search/attribute_filter.ts'
import { checkRunIdList } from '../../search/run_id_list.ts'
import { copyCheckpoint, copyMessage, copyRun } from './copies.ts'
import { encodeCursor } from '../run_cursor.ts'
import { listStart } from '../run_order.ts'
import { checkCheckpointPage } from '../checkpoint_page.ts'
import { checkRunFilters } from '../run_filters.ts'
import type { ListFilter } from './run_listing.ts'
import type { StoreState } from './store_state.ts'

export function getRun(store: StoreState, runId: string): RunRecord | null {
  const state = store.runs.get(runId)
  return state === undefined ? null : copyRun(state.run)
}

export function loadCheckpoints(store: StoreState, runId: string): CheckpointRecord[] {
  const checkpoints = store.runs.get(runId)?.checkpoints
  if (checkpoints === undefined) return []
  return [...checkpoints.values()].sort((a, b) => a.seq - b.seq).map(copyCheckpoint)
}

export function loadInbox(store: StoreState, runId: string, afterSeq: number): InboxMessage[] {
  const inbox = store.runs.get(runId)?.inbox ?? []
  return inbox.filter((message) => message.seq > afterSeq).map(copyMessage)
}

const DEFAULT_LIMIT = 50
const MAX_LIMIT = 1000

export function listRuns(store: StoreState, query: ListRunsQuery): RunPage {
  const limit = checkLimit(query.limit)
  const { order, descending, after } = listStart(query)
  const filter = listFilter(query)
  const { states, more } = store.listing.page(filter, after, limit, descending)
  const last = states[states.length - 1]
  return {
    runs: states.map((state) => copyRun(state.run)),
    nextCursor: more && last !== undefined ? encodeCursor(last.run, order) : null,
  }
}

/** The query's filters, validated (listRuns and facetRuns). */
export function listFilter(query: RunFacetQuery): ListFilter {
  return {
    workflow: query.workflow,
    parentRunId: query.parentRunId,
    statuses: statusSet(query.status),
    terms: parseSearchFilter(query.searchAttributes),
    ...checkRunFilters(query),
    tag: query.tag,
    originRunId: query.originRunId,
    admissionKey: query.admissionKey,
  }
}

/** Checkpoints at seq >= page.fromSeq, ascending, at most page.limit. */
export function loadCheckpointPage(
  store: StoreState,
  runId: string,
  page: CheckpointPage,
): CheckpointRecord[] {
  checkCheckpointPage(page)
  const checkpoints = store.runs.get(runId)?.checkpoints
  if (checkpoints === undefined) return []
  // Only the page is sorted and copied: paging through a long run stays linear per page.
  return [...checkpoints.values()]
    .filter((checkpoint) => checkpoint.seq >= page.fromSeq)
    .sort((a, b) => a.seq - b.seq)
    .slice(0, page.limit)
    .map(copyCheckpoint)
}

function checkLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIMIT
  if (Number.isInteger(limit) && limit >= 1 && limit <= MAX_LIMIT) return limit
  throw new InvalidArgumentError(
    `listRuns limit must be an integer in 1..${MAX_LIMIT}, got ${limit}`,
    {
      details: { limit },
    },
  )
}

function statusSet(status: ListRunsQuery['status']): ReadonlySet<RunStatus> | null {
  if (status === undefined) return null
  return new Set(typeof status === 'string' ? [status] : status)
}

export function loadSearchAttributes(
  store: StoreState,
  runIds: readonly string[],
): Map<string, SearchAttributes> {
  checkRunIdList(runIds)
  const found = new Map<string, SearchAttributes>()
  for (const runId of runIds) {
    const attributes = store.runs.get(runId)?.searchAttributes
    if (attributes === undefined || attributes.size === 0) continue
    const copy: SearchAttributes = {}
    for (const [name, value] of attributes)
      copy[name] = value instanceof Date ? new Date(value) : value
    found.set(runId, copy)
  }
  return found
}
