/** `cairn run`'s text: the run's facts as aligned lines, then its steps as a table. */
import type { RunInfo, StepInfo } from '@cairn/core'
import { formatTable, oneLine } from './table.ts'
import { formatDuration, formatTime, toJson } from './values.ts'

export function formatRun(run: RunInfo): string {
  const facts: Array<[string, string | null]> = [
    ['Run', run.id],
    ['Workflow', `${run.workflow}@${run.version}`],
    ['Status', run.status],
    ['Created', formatTime(run.createdAt)],
    ['Updated', formatTime(run.updatedAt)],
    ['Finished', run.finishedAt === null ? null : formatTime(run.finishedAt)],
    ['Waiting on', run.waitingOn],
    ['Wakes at', run.wakeAt === null ? null : formatTime(run.wakeAt)],
    [
      'Parked',
      run.parkReason === null ? null : `${run.parkReason.code}: ${run.parkReason.message}`,
    ],
    ['Error', run.error === null ? null : errorText(run.error)],
    ['Turns', String(run.turns)],
    ['Recoveries', String(run.recoveries)],
    ['Parent', run.parentRunId],
    ['Continued from', run.continuedFrom],
    ['Continued to', run.continuedTo],
    ['Input', oneLine(toJson(run.input, 0), 200)],
    ['Output', run.output === undefined ? null : oneLine(toJson(run.output, 0), 200)],
  ]
  const shown = facts.filter((f): f is [string, string] => f[1] !== null)
  const width = Math.max(...shown.map(([label]) => label.length))
  return shown.map(([label, value]) => `${label.padEnd(width)}  ${value}`).join('\n')
}

const STEP_COLUMNS = ['SEQ', 'NAME', 'KIND', 'STATUS', 'ATTEMPTS', 'STARTED', 'TOOK', 'ERROR']

export function formatSteps(steps: readonly StepInfo[]): string {
  if (steps.length === 0) return 'No steps.'
  return formatTable(STEP_COLUMNS, steps.map(stepRow))
}

function stepRow(step: StepInfo): string[] {
  const open = step.status !== 'completed' && step.status !== 'failed'
  return [
    String(step.seq),
    step.name,
    step.kind,
    step.status,
    String(step.attempts),
    formatTime(step.startedAt),
    open ? '-' : formatDuration(step.updatedAt.getTime() - step.startedAt.getTime()),
    step.error === null ? '' : oneLine(errorText(step.error), 60),
  ]
}

function errorText(error: { message: string; code?: string }): string {
  return error.code === undefined ? error.message : `${error.code}: ${error.message}`
}
