/**
 * `GET api/runs/:id`: the run with its payloads, lineage (parent, first children, the
 * continueAsNew chain) and what it waits on.
 */
import type { Engine, RunInfo, RunOrigin } from '@cairn/core'
import { RunNotFoundError } from '@cairn/core'
import { toJsonValue } from './json_value.ts'
import { iso, runSummary, type RunSummary } from './run_views.ts'
import { waitsOf, type OpenPosition, type Wait } from './waits.ts'

const CHILDREN_SHOWN = 100
const DERIVED_SHOWN = 50

export interface RunDetail extends Omit<RunSummary, 'error'> {
  input: unknown
  output: unknown
  error: unknown
  parkReason: unknown
  searchAttributes: unknown
  claimableAt: string | null
  turns: number
  /** Takeovers since it last moved on (RunInfo.recoveries). */
  recoveries: number
  leaseOwner: string | null
  /** Claim priority (RunInfo.priority). */
  priority: number
  /** The singleton key it was admitted or queued under, or null. */
  singletonKey: string | null
  /** The named queue the whole run executes in (RunInfo.queue), or null. */
  queue: string | null
  lineage: {
    parentRunId: string | null
    children: RunSummary[]
    childrenTruncated: boolean
    continuedFrom: string | null
    continuedTo: string | null
    /** What this run was made from (retry with edited input, fork), or null. */
    origin: RunOrigin | null
    /** Runs made from this one (its retries with edited input and forks), newest first. */
    derived: RunSummary[]
    derivedTruncated: boolean
  }
  waits: Wait[]
}

export async function loadRunDetail(engine: Engine, runId: string): Promise<RunDetail> {
  const run = await engine.getRun(runId)
  if (run === null) throw new RunNotFoundError(`no run with id "${runId}"`)
  const [children, derived, open] = await Promise.all([
    engine.listRuns({ parentRunId: run.id, limit: CHILDREN_SHOWN }),
    engine.listRuns({ originRunId: run.id, limit: DERIVED_SHOWN }),
    openPositions(engine, run),
  ])
  return {
    ...runSummary(run),
    input: toJsonValue(run.input),
    output: toJsonValue(run.output),
    error: toJsonValue(run.error),
    parkReason: toJsonValue(run.parkReason),
    searchAttributes: toJsonValue(run.searchAttributes),
    claimableAt: iso(run.claimableAt),
    turns: run.turns,
    recoveries: run.recoveries,
    leaseOwner: run.leaseOwner,
    priority: run.priority,
    singletonKey: run.singletonKey,
    queue: run.queue,
    lineage: {
      parentRunId: run.parentRunId,
      children: children.runs.map(runSummary),
      childrenTruncated: children.nextCursor !== null,
      continuedFrom: run.continuedFrom,
      continuedTo: run.continuedTo,
      origin: run.origin,
      derived: derived.runs.map(runSummary),
      derivedTruncated: derived.nextCursor !== null,
    },
    waits: waitsOf(open, childRunIdsBySeq(children.runs), run.waitingOn),
  }
}

/**
 * The positions still open (waiting, or a step's pending retry), straight from the store's
 * records: a finished run has none, and an open run's completed outputs are not decoded.
 */
async function openPositions(engine: Engine, run: RunInfo): Promise<OpenPosition[]> {
  if (run.finishedAt !== null) return []
  const records = await engine.store.loadCheckpoints(run.id)
  return records
    .filter((r) => r.status === 'waiting' || r.status === 'retrying')
    .map((r) => ({ ...r, wakeAt: r.wakeAt === null ? null : new Date(r.wakeAt) }))
}

/** The open child run started at each position of its parent. */
function childRunIdsBySeq(children: readonly RunInfo[]): Map<number, string> {
  const bySeq = new Map<number, string>()
  for (const child of children)
    if (child.finishedAt === null && child.parentSeq !== null) bySeq.set(child.parentSeq, child.id)
  return bySeq
}
