/**
 * Starting one window's run (schedule_firer.ts): its deterministic id, its input (the stored
 * value, or the declaring code's function of the window, given INPUT_TIMEOUT_MS), the start,
 * and what each failure means — the window skipped (a function that threw or hung, a start
 * refused for good), or the firing abandoned to its lease (a failure a later try can mend).
 *
 * A window whose run exists already (a firing repeated after its advance was lost) is taken as
 * started without calling the input function again: a function of the clock would give
 * another input, which the start would refuse as a different run under the same id.
 */
import type { ScheduleRecord } from '../contracts/schedules.ts'
import { CairnError, ErrorCodes } from '../errors/index.ts'
import type { ResolvedEngineOptions } from './options.ts'
import type { ScheduleEventSink, ScheduleSkipReason } from './schedule_events.ts'
import { windowRunId } from './schedule_ids.ts'
import type { ScheduleFiring, StoredScheduleSpec } from './schedule_spec.ts'

/** Longest an input function may take for one window before the window is skipped. */
export const INPUT_TIMEOUT_MS = 10_000

/** Start failures a later firing can mend: the firing is abandoned, its lease lapses. */
const MENDABLE: ReadonlySet<string> = new Set([
  ErrorCodes.STORE_FAILURE,
  ErrorCodes.ENGINE_STOPPED,
  // An inputSchema that did not answer in time (schema/validate.ts): try again later.
  ErrorCodes.RETRYABLE,
  ErrorCodes.WORKFLOW_NOT_REGISTERED,
  ErrorCodes.QUEUE_NOT_REGISTERED,
])

/** A firing that cannot go on here: left to its lease. `missingInput`: this engine lacks its input function. */
export class Abandon extends Error {
  readonly missingInput: boolean
  constructor(message: string, missingInput = false) {
    super(message)
    this.missingInput = missingInput
  }
}

export interface WindowStartDeps {
  options: ResolvedEngineOptions
  /** engine.start under `runId`; `existing` when the run was there already. */
  start(
    workflow: string,
    version: string | null,
    input: unknown,
    runId: string,
  ): Promise<{ existing: boolean }>
  inputFn(scheduleId: string): ((firing: ScheduleFiring) => unknown) | undefined
  events: ScheduleEventSink
}

/** Start window `window`'s run: its id, or null when the window is skipped. */
export async function startWindow(
  deps: WindowStartDeps,
  record: ScheduleRecord,
  spec: StoredScheduleSpec,
  window: number,
  now: number,
): Promise<string | null> {
  const runId = windowRunId(record.id, window)
  if ((await deps.options.store.getRun(runId)) !== null) return runId
  const input = await inputOf(deps, record, spec, window)
  if ('skipped' in input) return skip(deps, record, window, 'input')
  let started: { existing: boolean }
  try {
    started = await deps.start(record.workflow, record.version, input.value, runId)
  } catch (error) {
    const code = CairnError.isCairnError(error) ? error.code : ''
    if (MENDABLE.has(code))
      throw new Abandon(`schedule "${record.id}" could not start ${runId} (${code})`)
    deps.options.logger.error(
      { scheduleId: record.id, runId, err: error },
      'cairn: a schedule window was refused its run; it is skipped',
    )
    return skip(deps, record, window, 'refused')
  }
  if (!started.existing) deps.events.fired(record, window, runId, now)
  return runId
}

function skip(
  deps: WindowStartDeps,
  record: ScheduleRecord,
  window: number,
  reason: ScheduleSkipReason,
): null {
  deps.events.skipped(record, window, reason, 1)
  return null
}

/** The window's input, or `skipped` when its function threw or took too long. */
async function inputOf(
  deps: WindowStartDeps,
  record: ScheduleRecord,
  spec: StoredScheduleSpec,
  window: number,
): Promise<{ value: unknown } | { skipped: true }> {
  if ('text' in spec.input) return { value: deps.options.codec.decode(spec.input.text) }
  const fn = deps.inputFn(record.id)
  if (fn === undefined)
    throw new Abandon(`schedule "${record.id}" computes its input in code this engine lacks`, true)
  const where = { scheduleId: record.id, window: new Date(window).toISOString() }
  try {
    const firing = { scheduleId: record.id, scheduledAt: new Date(window) }
    return {
      value: await withTimeout(
        deps,
        Promise.resolve().then(() => fn(firing)),
      ),
    }
  } catch (error) {
    deps.options.logger.error(
      { ...where, err: error },
      "cairn: a schedule's input function failed; the window is skipped",
    )
    return { skipped: true }
  }
}

/** `work`, or a rejection after INPUT_TIMEOUT_MS (on the engine's clock). */
function withTimeout<T>(deps: WindowStartDeps, work: Promise<T>): Promise<T> {
  const { promise, reject } = Promise.withResolvers<T>()
  const timer = deps.options.clock.setTimer(INPUT_TIMEOUT_MS, () =>
    reject(new Error(`the input function took longer than ${INPUT_TIMEOUT_MS} ms`)),
  )
  return Promise.race([work, promise]).finally(() => timer.cancel())
}
