/**
 * A child's outcome delivered to its parent once more: the first delivery rode on the child's
 * finishing write, and was dropped if the parent had ended meanwhile (a failed or dead parent,
 * since requeued): without this the requeued parent would wait for it forever. Done when a
 * parent is requeued (for each of its ended children), and when a parent's replay finds a
 * child it starts already ended.
 * The message carries the dedupe id of the first one, so a parent that had it already
 * (consumed or not) takes it once. A child that continued as new is followed to the run that
 * ended its chain (that run's finish is the one that told the parent).
 */
import type { RunRecord } from '../contracts/records.ts'
import { isTerminalStatus } from '../store/run_statuses.ts'
import { childOutcomeMessage } from '../execution/child_outcome.ts'
import type { Committer } from './committer.ts'
import type { ResolvedEngineOptions } from './options.ts'

/** A chain longer than this is not followed (a child looping on continueAsNew stays as it is). */
const MAX_CHAIN = 100
/** Children read per page when a requeued parent's ended children are delivered again. */
const PAGE = 100

type RedeliveryDeps = { options: ResolvedEngineOptions; committer: Committer }

/** Every ended child of `parentRunId` (a run just requeued) tells it its outcome again. */
export async function redeliverEndedChildren(
  deps: RedeliveryDeps,
  parentRunId: string,
): Promise<void> {
  let cursor: string | undefined
  do {
    const query = { parentRunId, status: ENDED, order: 'oldest' as const, limit: PAGE }
    const page = await deps.options.store.listRuns(
      cursor === undefined ? query : { ...query, cursor },
    )
    for (const child of page.runs)
      if (child.parentSeq !== null)
        await redeliverEndedChild(deps, child, { runId: parentRunId, seq: child.parentSeq })
    cursor = page.nextCursor ?? undefined
  } while (cursor !== undefined)
}

const ENDED = ['completed', 'failed', 'cancelled', 'continued', 'dead'] as const

export async function redeliverEndedChild(
  deps: RedeliveryDeps,
  child: RunRecord,
  parent: { runId: string; seq: number },
): Promise<void> {
  const ended = await chainEnd(deps.options, child)
  if (ended === null) return
  const outcome = { status: ended.status, output: ended.output, error: ended.error }
  if (!isTerminalStatus(outcome.status) || outcome.status === 'continued') return
  const message = childOutcomeMessage(
    { runId: ended.id, workflow: ended.workflow },
    parent,
    { ...outcome, status: outcome.status },
    deps.options.codec,
  )
  await deps.committer.enqueue({ type: 'deliverMessage', message })
}

/** The run that ended `child`'s continueAsNew chain, or null while the chain is open. */
async function chainEnd(
  options: ResolvedEngineOptions,
  child: RunRecord,
): Promise<RunRecord | null> {
  let run: RunRecord | null = child
  for (let hops = 0; run !== null && hops < MAX_CHAIN; hops++) {
    if (!isTerminalStatus(run.status)) return null
    if (run.status !== 'continued' || run.continuedTo === null) return run
    run = await options.store.getRun(run.continuedTo)
  }
  if (run !== null)
    options.logger.warn(
      { runId: child.id, parentRunId: child.parentRunId },
      `cairn: a child's continueAsNew chain is longer than ${MAX_CHAIN} runs; its outcome is not delivered again`,
    )
  return null
}
