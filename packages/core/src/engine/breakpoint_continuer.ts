/**
 * `engine.continue(runId)`: resume a run stopped at `ctx.breakpoint`. It finds the breakpoint
 * the run waits at (the earliest, or the one with `label`) and sends that breakpoint's own
 * continue signal, deduplicated by position: continuing twice is continuing once.
 */
import type { CheckpointRecord } from '../contracts/records.ts'
import { NotAtBreakpointError, RunNotFoundError } from '../errors/index.ts'
import { continueSignalName } from '../execution/wait_names.ts'
import { assertIdentifier } from '../util/validate.ts'
import { deliverSignal, type SignalReceipt, type SignalSenderDeps } from './signal_sender.ts'

export interface ContinueOptions {
  /** Which breakpoint, when the run waits at several (parallel branches). Default: the earliest. */
  label?: string
  /** Handed to the workflow as `ctx.breakpoint`'s result (who continued, why). */
  note?: unknown
}

export async function continueRun(
  deps: SignalSenderDeps,
  runId: string,
  options: ContinueOptions = {},
): Promise<SignalReceipt & { label: string }> {
  assertIdentifier(runId, 'runId')
  const store = deps.options.store
  const [run, records] = await Promise.all([store.getRun(runId), store.loadCheckpoints(runId)])
  if (run === null) throw new RunNotFoundError(`no run with id "${runId}"`, { details: { runId } })
  const at = waitingBreakpoint(records, options.label)
  if (at === undefined) {
    const which = options.label === undefined ? 'a breakpoint' : `breakpoint "${options.label}"`
    throw new NotAtBreakpointError(
      `run "${runId}" is not stopped at ${which} (it is ${run.status})`,
      {
        details: { runId, status: run.status, label: options.label ?? null },
      },
    )
  }
  const name = continueSignalName(at.seq)
  const receipt = await deliverSignal(deps, { runId, name }, options.note, name)
  return { ...receipt, label: at.name }
}

function waitingBreakpoint(
  records: readonly CheckpointRecord[],
  label: string | undefined,
): CheckpointRecord | undefined {
  return records.find(
    (r) =>
      r.kind === 'breakpoint' &&
      r.status === 'waiting' &&
      (label === undefined || r.name === label),
  )
}
