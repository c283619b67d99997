/**
 * engine.deleteRun and engine.purgeRuns (docs/retention.md): finished runs deleted with their
 * child subtree and every row of theirs, through StateStore.deleteRunTrees (run_tree_deleter.ts).
 * A purge pages listRuns' filter, oldest first, 100 roots a page, each page one deletion.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { TerminalStatus } from '../contracts/records.ts'
import type { RunTreeBlocker } from '../contracts/retention.ts'
import type { RunFacetQuery, StateStore } from '../contracts/state_store.ts'
import { InvalidArgumentError, RunNotDeletableError, RunNotFoundError } from '../errors/index.ts'
import { isTerminalStatus } from '../store/run_statuses.ts'
import { checkOptionKeys, optionNames, type OptionsSpec } from '../util/known_keys.ts'
import { assertIdentifier } from '../util/validate.ts'
import { deleteTrees } from './run_tree_deleter.ts'

/** What engine.purgeRuns deletes: listRuns' filters, with terminal statuses only. */
export type PurgeFilter = Omit<RunFacetQuery, 'status' | 'claimableBefore' | 'admissionKey'> & {
  /** Required: which finished runs (completed, failed, cancelled, continued, dead). */
  status: TerminalStatus | readonly TerminalStatus[]
  /** The most matching runs (roots) to delete; default: all of them. */
  limit?: number
}

export interface PurgeRefusal {
  runId: string
  blocker: RunTreeBlocker
}

export interface PurgeReport {
  /** Matching runs deleted, each with its subtree. */
  roots: number
  /** Runs deleted in all (roots and their descendants). */
  runs: number
  /** Matching runs kept because an open run needs them (their first 100 in `refusals`). */
  refused: number
  refusals: PurgeRefusal[]
}

const PAGE = 100
const MAX_REFUSALS_LISTED = 100

const PURGE_FILTER: OptionsSpec = {
  call: 'engine.purgeRuns',
  known: optionNames<PurgeFilter>({
    status: true,
    workflow: true,
    parentRunId: true,
    searchAttributes: true,
    version: true,
    createdFrom: true,
    createdBefore: true,
    idContains: true,
    tag: true,
    originRunId: true,
    limit: true,
  }),
}

/** The run and its subtree: how many runs went. E_RUN_NOT_FOUND, E_RUN_NOT_DELETABLE. */
export async function deleteRun(store: StateStore, runId: string): Promise<{ runs: number }> {
  assertIdentifier(runId, 'runId')
  const [tree] = await deleteTrees(store, [runId])
  if (tree === undefined || tree.outcome === 'not_found' || tree.outcome === 'changed')
    throw new RunNotFoundError(`no run with id "${runId}"`, { details: { runId } })
  if (tree.outcome === 'refused') throw notDeletable(runId, tree.blocker)
  return { runs: tree.runs }
}

export async function purgeRuns(
  store: StateStore,
  filter: PurgeFilter,
  pauseMs = 0,
): Promise<PurgeReport> {
  const { limit, status, ...rest } = checkPurgeFilter(filter)
  const report: PurgeReport = { roots: 0, runs: 0, refused: 0, refusals: [] }
  let cursor: string | undefined
  for (let left = limit ?? Infinity; left > 0;) {
    const query = { ...rest, status, order: 'oldest' as const, limit: Math.min(PAGE, left) }
    const page = await store.listRuns(cursor === undefined ? query : { ...query, cursor })
    if (page.runs.length === 0) break
    left -= page.runs.length
    const ids = page.runs.map((run) => run.id)
    for (const tree of await deleteTrees(store, ids, { statuses: asList(status) }, pauseMs)) {
      // A descendant of an earlier root, gone with it; or requeued since the page was read.
      if (tree.outcome === 'not_found' || tree.outcome === 'changed') continue
      report.runs += tree.runs
      if (tree.outcome === 'deleted') report.roots++
      else {
        report.refused++
        if (report.refusals.length < MAX_REFUSALS_LISTED)
          report.refusals.push({ runId: tree.runId, blocker: tree.blocker })
      }
    }
    if (page.nextCursor === null) break
    cursor = page.nextCursor
    await sleep(pauseMs) // the store's other writers (and this process's work) get in
  }
  return report
}

function asList(status: PurgeFilter['status']): readonly TerminalStatus[] {
  return typeof status === 'string' ? [status] : status
}

function checkPurgeFilter(filter: PurgeFilter): PurgeFilter {
  checkOptionKeys(filter, PURGE_FILTER)
  if (filter === undefined)
    throw new InvalidArgumentError('engine.purgeRuns needs a filter with `status`')
  const statuses = typeof filter.status === 'string' ? [filter.status] : filter.status
  if (!Array.isArray(statuses) || statuses.length === 0)
    throw new InvalidArgumentError(
      'engine.purgeRuns: `status` is required: one terminal status or a list of them',
    )
  for (const status of statuses as unknown[])
    if (typeof status !== 'string' || !isTerminalStatus(status))
      throw new InvalidArgumentError(
        `engine.purgeRuns: ${JSON.stringify(status)} is not a terminal status: only finished runs are deleted`,
      )
  const limit = filter.limit
  if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1))
    throw new InvalidArgumentError(
      `engine.purgeRuns: limit must be a positive integer, got ${String(limit)}`,
    )
  return filter
}

function notDeletable(runId: string, blocker: RunTreeBlocker): RunNotDeletableError {
  return new RunNotDeletableError(
    `run "${runId}" cannot be deleted: ${WHY[blocker.relation](blocker)}`,
    {
      details: { runId, blocker },
    },
  )
}

const WHY: Record<RunTreeBlocker['relation'], (blocker: RunTreeBlocker) => string> = {
  self: (b) => `it is ${b.status}`,
  descendant: (b) => `its descendant "${b.runId}" is ${b.status}`,
  parent: (b) => `its parent "${b.runId}" is ${b.status} (it may still need this run)`,
  successor: (b) =>
    `its successor "${b.runId}" is ${b.status} (it reads this run before its first step)`,
  dead_letter: (b) => `its dead letter "${b.runId}" is ${b.status} (it reads how this run ended)`,
}
