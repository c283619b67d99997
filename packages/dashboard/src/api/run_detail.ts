/**
 * `GET api/runs/:id`: the run with its payloads, lineage (parent, first children, the
 * continueAsNew chain) and what it waits on.
 */
import type { Engine, RunInfo, RunOrigin } from '@cairn/core'
import { RunNotFoundError } from '@cairn/core'
import { toJsonValue } from './json_value.ts'
import { iso, runSummary, type RunSummary } from './run_views.ts'
import { waitsOf, type Wait } from './waits.ts'

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
  leaseOwner: string | null
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
  const [children, derived, steps] = await Promise.all([
    engine.listRuns({ parentRunId: run.id, limit: CHILDREN_SHOWN }),
    engine.listRuns({ originRunId: run.id, limit: DERIVED_SHOWN }),
    engine.getSteps(run.id),
  ])
  const childRunIds = await childRunIdsBySeq(engine, children.runs)
  return {
    ...runSummary(run),
    input: toJsonValue(run.input),
    output: toJsonValue(run.output),
    error: toJsonValue(run.error),
    parkReason: toJsonValue(run.parkReason),
    searchAttributes: toJsonValue(run.searchAttributes),
    claimableAt: iso(run.claimableAt),
    turns: run.turns,
    leaseOwner: run.leaseOwner,
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
    waits: waitsOf(steps, childRunIds, run.waitingOn),
  }
}

// The position each open child was started at lives on the child's store record (parentSeq).
async function childRunIdsBySeq(
  engine: Engine,
  children: readonly RunInfo[],
): Promise<Map<number, string>> {
  const open = children.filter((c) => c.finishedAt === null)
  const records = await Promise.all(open.map((c) => engine.store.getRun(c.id)))
  const bySeq = new Map<number, string>()
  for (const record of records)
    if (record?.parentSeq !== null && record?.parentSeq !== undefined)
      bySeq.set(record.parentSeq, record.id)
  return bySeq
}
