/**
 * What a claimed run needs before its turn starts: its history and inbox (read only where the
 * claim cannot rule them out: claimed_run_state.ts), and the checks a run with no history yet
 * must pass — a successor waits for its predecessor to have continued to it (and takes its
 * signals), a dead letter for its run to have failed or died, a child never starts after its
 * parent was cancelled. A run that fails a check has
 * been dealt with (handed back, or ended) and does not start.
 */
import { timelineRecords } from './views.ts'
import type { RunRecord } from '../contracts/records.ts'
import { History } from '../execution/history.ts'
import { Inbox } from '../execution/inbox.ts'
import { mayHaveCheckpoints, mayHaveMessages } from './claimed_run_state.ts'
import type { Committer } from './committer.ts'
import type { ResolvedEngineOptions } from './options.ts'
import { parentAllowsStart } from './parent_check.ts'
import { SuccessorCheck } from './successor_check.ts'
import { deadLetterMayRun } from './dead_letter_check.ts'
import type { UnstartedCancelDeps } from './unstarted_cancel.ts'

export interface LoadedRun {
  history: History
  inbox: Inbox
}

export interface ClaimedRunLoaderDeps {
  options: ResolvedEngineOptions
  successors: SuccessorCheck
  /** What ends a run a check stops (parent_check.ts, unstarted_cancel.ts). */
  unstarted: UnstartedCancelDeps
}

/** The loader's checks; `onCancelled`: a run a check ended cancelled before it started. */
export function claimedRunLoaderDeps(
  options: ResolvedEngineOptions,
  committer: Committer,
  onCancelled: (run: RunRecord) => void,
): ClaimedRunLoaderDeps {
  const unstarted = { options, committer, onCancelled }
  return { options, successors: new SuccessorCheck(unstarted), unstarted }
}

/** The run's history and inbox, or null when a check stopped it (it must not start). */
export async function loadClaimedRun(
  deps: ClaimedRunLoaderDeps,
  run: RunRecord,
): Promise<LoadedRun | null> {
  const store = deps.options.store
  const [records, loaded] = await Promise.all([
    mayHaveCheckpoints(run) ? store.loadCheckpoints(run.id) : [],
    mayHaveMessages(run) ? store.loadInbox(run.id) : [],
  ])
  let messages = loaded
  // No position of the body yet (a run on a queue may have waited for its slot: not one).
  const unstarted = timelineRecords(records).length === 0
  if (unstarted && run.continuedFrom !== null) {
    // A successor's first step waits for its predecessor's end, and takes its signals.
    if (!(await deps.successors.check(run))) return null
    messages = await store.loadInbox(run.id)
  }
  // A dead letter's first step waits for its run to have ended failed or dead.
  if (unstarted && !(await deadLetterMayRun(deps.unstarted, run))) return null
  // A child's first step waits for nothing, but never follows its parent's cancel.
  if (unstarted && isChild(run) && !(await parentAllowsStart(deps.unstarted, run))) return null
  return { history: new History(records), inbox: new Inbox(messages, run.inboxSeq) }
}

function isChild(run: RunRecord): run is RunRecord & { parentRunId: string } {
  return run.parentRunId !== null
}
