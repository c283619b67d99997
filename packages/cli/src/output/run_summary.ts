/**
 * One run as the lists show it — the dashboard API's RunSummary: no input or output, the
 * error reduced to name, message and code.
 */
import type { RunInfo } from '@cairn/core'
// The light subpath: listing runs must not load the dashboard's HTTP server.
import { runSummary } from '@cairn/dashboard/views'
import { formatTime } from './values.ts'
import { oneLine } from './table.ts'

/** The dashboard API's RunSummary: the CLI's JSON is the API's, built by the same function. */
export { runSummary }

export const RUN_COLUMNS = ['ID', 'WORKFLOW', 'STATUS', 'CREATED', 'UPDATED', 'WAITING ON / ERROR']

export function runRow(run: RunInfo): string[] {
  return [
    run.id,
    `${run.workflow}@${run.version}`,
    run.status,
    formatTime(run.createdAt),
    formatTime(run.updatedAt),
    note(run),
  ]
}

/** What a reader wants next to the status: what it waits on, or why it failed. */
function note(run: RunInfo): string {
  if (run.error !== null) {
    const code = run.error.code === undefined ? '' : `${run.error.code}: `
    return oneLine(`${code}${run.error.message}`, 60)
  }
  if (run.parkReason !== null)
    return oneLine(`parked: ${run.parkReason.code}: ${run.parkReason.message}`, 60)
  return run.waitingOn ?? ''
}
