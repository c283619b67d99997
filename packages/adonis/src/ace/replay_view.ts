/** How `durable:replay` reports a history that replayed on the current code. */
import type { ReplayReport } from '@cairn/core/testing'

export function replayLine(file: string, report: ReplayReport): string {
  const run = `${report.workflow} v${report.version}, run ${report.runId}`
  return `${file}: ${run}: ${report.positions} recorded position(s) replayed; ${endText(report)}`
}

function endText(report: ReplayReport): string {
  const end = report.endedAt
  switch (end.kind) {
    case 'finished':
      return `the run ${end.status} as recorded`
    case 'waiting':
      return `it waits on ${end.on}, as recorded`
    case 'new-code':
      return `then the code asks for ${end.what}, which the history does not record (new code past its end)`
    case 'parked':
      return `it parked: ${end.code}: ${end.message}`
  }
}
