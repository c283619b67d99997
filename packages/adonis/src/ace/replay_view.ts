/** How `durable:replay` reports a history that replayed on the current code. */
import type { ReplayReport } from '@cairn/core/testing'

/**
 * Whether the replay shows a change a deploy would make runs feel: a park (a step the code no
 * longer registers, …), or a run that fails on the current code where the recorded one had not.
 */
export function replayFails(report: ReplayReport, recordedStatus: string): boolean {
  const end = report.endedAt
  if (end.kind === 'parked') return true
  return end.kind === 'finished' && end.status === 'failed' && !FAILED.has(recordedStatus)
}

export function replayLine(file: string, report: ReplayReport, recordedStatus: string): string {
  const run = `${report.workflow} v${report.version}, run ${report.runId}`
  const end = endText(report, recordedStatus)
  return `${file}: ${run}: ${report.positions} recorded position(s) replayed; ${end}`
}

const FAILED = new Set(['failed', 'dead'])

function endText(report: ReplayReport, recorded: string): string {
  const end = report.endedAt
  switch (end.kind) {
    case 'finished':
      return end.status === recorded
        ? `the run ${end.status} as recorded`
        : `the run ${end.status} on the current code; the history recorded it ${recorded}`
    case 'waiting':
      return `it waits on ${end.on}`
    case 'new-code':
      return `then the code asks for ${end.what}, which the history does not record (new code past its end)`
    case 'parked':
      return `it parked: ${end.code}: ${end.message}`
  }
}
