/**
 * Starting the runs an event triggers (event_triggers.ts), after the event is in the log: each
 * through `engine.start` with its derived run id, so the store creates it once however often
 * the publish is retried. What each start came to is reported on the publish's result.
 *
 * A start the engine refuses for good (a full singleton key that rejects, an id another
 * workflow's run holds, a trigger or singleton key function that threw) is reported and
 * logged, and the other starts and the event's deliveries go on. A start that failed for a
 * reason a retry can mend (the store unreachable, the engine closing) fails the publish once
 * every start has settled: retrying it with its event id starts what is missing and nothing
 * twice.
 */
import { CairnError, ErrorCodes } from '../errors/index.ts'
import type { Logger } from '../contracts/logger.ts'
import type { StartedRun } from './run_starter.ts'
import type { TriggeredStart } from './event_triggers.ts'

/** What an event's trigger of one workflow came to (PublishedEvent.started). */
export interface TriggeredRun {
  workflow: string
  /** The run's id; null when the trigger could not derive one (`error` says why). */
  runId: string | null
  /**
   * `started`: created by this publish; `queued`: created, waiting for its singleton key's
   * slot; `existing`: created before, by an earlier publish of this event id (or of an event
   * deriving the same run id); `refused`: not started, for the reason in `error`.
   */
  status: 'started' | 'queued' | 'existing' | 'refused'
  error?: { code: string; message: string }
}

export interface TriggeredRunDeps {
  logger: Logger
  /** engine.start with the trigger's run id; its input is a fresh decode of the payload. */
  start(workflow: string, runId: string): Promise<StartedRun>
}

/**
 * Failures a retry of the publish can mend (the store unreachable, the engine closing): they
 * fail the publish. Anything else — a full singleton key, an id another workflow's run holds,
 * a singleton `key` function that throws on this payload — a retry would meet again: it is
 * reported, not thrown.
 */
const PASSING: ReadonlySet<string> = new Set([ErrorCodes.STORE_FAILURE, ErrorCodes.ENGINE_STOPPED])

export async function startTriggeredRuns(
  deps: TriggeredRunDeps,
  event: { name: string; eventId: string },
  starts: readonly TriggeredStart[],
): Promise<TriggeredRun[]> {
  const settled = await Promise.allSettled(starts.map((start) => startOne(deps, start)))
  const transient = settled.find((s) => s.status === 'rejected')
  if (transient !== undefined) throw (transient as PromiseRejectedResult).reason
  const runs = settled.map((s) => (s as PromiseFulfilledResult<TriggeredRun>).value)
  for (const run of runs)
    if (run.status === 'refused')
      deps.logger.warn(
        { event: event.name, eventId: event.eventId, ...run },
        'cairn: an event did not start a run its workflow declares (onEvent)',
      )
  return runs
}

async function startOne(deps: TriggeredRunDeps, start: TriggeredStart): Promise<TriggeredRun> {
  const { workflow, runId } = start
  if (runId === null)
    return { workflow, runId, status: 'refused', error: described(start.error, 'the trigger') }
  try {
    const started = await deps.start(workflow, runId)
    const status = started.existing ? 'existing' : started.queued === true ? 'queued' : 'started'
    return { workflow, runId, status }
  } catch (error) {
    const cairn = CairnError.isCairnError(error) ? error : null
    if (cairn !== null && PASSING.has(cairn.code)) throw error
    // The run of this id exists with another input: an earlier event deriving the same id.
    if (cairn?.code === ErrorCodes.RUN_ID_CONFLICT && cairn.details?.workflow === workflow)
      return { workflow, runId, status: 'existing' }
    // A raw error here is the workflow's own code throwing (a singleton key function).
    return { workflow, runId, status: 'refused', error: described(error, 'the start') }
  }
}

function described(error: unknown, what: string): { code: string; message: string } {
  if (CairnError.isCairnError(error)) return { code: error.code, message: error.message }
  const message = error instanceof Error ? error.message : String(error)
  return { code: ErrorCodes.INVALID_ARGUMENT, message: `${what} threw: ${message}` }
}
