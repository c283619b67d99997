/**
 * What a failed expectation (expect_run.ts) says about the run: its status, what it waits on,
 * its error, and its history position by position, so the test's output explains the failure
 * without a debugger.
 */
import { inspect } from 'node:util'
import type { SerializedError } from '../contracts/codec.ts'
import type { RunInfo, StepInfo } from '../engine/views.ts'
import { isStepKind } from './recorded_steps.ts'

/** `Error: nope` or `CancelledError [E_RUN_CANCELLED]: stop`. */
export function describeError(error: SerializedError | null): string {
  if (error === null) return 'no error recorded'
  const code = error.code === undefined ? '' : ` [${error.code}]`
  return `${error.name}${code}: ${error.message}`
}

/** One line: the run's id, workflow and where it stands. */
export function describeStatus(run: RunInfo): string {
  return `run "${run.id}" (${run.workflow}@${run.version}) is ${statusDetail(run)}`
}

function statusDetail(run: RunInfo): string {
  switch (run.status) {
    case 'completed':
      return `completed with output ${show(run.output)}`
    case 'failed':
    case 'cancelled':
    case 'dead':
      return `${run.status}: ${describeError(run.error)}`
    case 'continued':
      return `continued as new (successor "${run.continuedTo ?? '?'}")`
    case 'parked':
      return `parked (${run.parkReason ?? 'no reason'}): ${describeError(run.error)}`
    default:
      return run.waitingOn === null ? run.status : `${run.status} on ${run.waitingOn}`
  }
}

/** The history, one indented line per position; `(no positions recorded)` when empty. */
export function describeSteps(steps: readonly StepInfo[]): string {
  if (steps.length === 0) return '  (no positions recorded)'
  return steps
    .map((step) => `  #${step.seq} ${step.kind} "${step.name}" ${stepDetail(step)}`)
    .join('\n')
}

/** `completed (2 attempts)`; attempts only for steps, where retries make them tell. */
function stepDetail(step: StepInfo): string {
  const facts = isStepKind(step.kind) ? [counted(step.attempts, 'attempt')] : []
  if (step.error !== null) facts.push(`last error ${describeError(step.error)}`)
  return facts.length === 0 ? step.status : `${step.status} (${facts.join(', ')})`
}

/** `1 attempt`, `2 attempts`. */
export function counted(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`
}

/** The run's status line and its history, for the end of an assertion message. */
export function describeRun(run: RunInfo, steps: readonly StepInfo[]): string {
  return `${describeStatus(run)}\nhistory:\n${describeSteps(steps)}`
}

/** A value in a message, on one line; long values cut at 200 characters. */
export function show(value: unknown): string {
  const text = inspect(value, { depth: 4, breakLength: Infinity })
  return text.length > 200 ? `${text.slice(0, 200)}…` : text
}
