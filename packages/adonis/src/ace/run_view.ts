/**
 * How `durable:runs` shows a run: a table row for people and a JSON object for scripts. Neither
 * carries the run's input or output: payloads can be large or personal, and one run's are a
 * `durable.getRun(id)` away.
 */
import string from '@adonisjs/core/helpers/string'
import type { RunInfo } from '@cairn/core'

export const TABLE_HEAD = ['Run', 'Workflow', 'Status', 'Created', 'Updated', 'Turns', 'Detail']

export function tableRow(run: RunInfo, now: number): string[] {
  return [
    run.id,
    `${run.workflow}@${run.version}`,
    run.status,
    run.createdAt.toISOString(),
    `${since(run.updatedAt.getTime(), now)} ago`,
    String(run.turns),
    detail(run, now),
  ]
}

/** The one fact an operator looks for next, per status. */
export function detail(run: RunInfo, now: number): string {
  const claimable = run.claimableAt?.getTime() ?? null
  switch (run.status) {
    case 'pending':
      return claimable === null ? '' : `claimable ${relative(claimable, now)}`
    case 'running':
      return claimable === null
        ? `lease ${run.leaseOwner ?? '?'}`
        : `lease ${run.leaseOwner ?? '?'}, ${claimable > now ? 'expires' : 'expired'} ${relative(claimable, now)}`
    case 'queued':
    case 'waiting':
    case 'blocked':
      return run.waitingOn ?? (claimable === null ? '' : `wakes ${relative(claimable, now)}`)
    case 'parked':
      return run.parkReason === null ? '' : `${run.parkReason.code}: ${run.parkReason.message}`
    case 'failed':
    case 'dead':
    case 'cancelled':
      return run.error === null ? '' : `${run.error.code ?? run.error.name}: ${run.error.message}`
    case 'continued':
      return run.continuedTo === null ? '' : `continued as ${run.continuedTo}`
    default:
      return ''
  }
}

export interface RunJson {
  id: string
  workflow: string
  version: string
  status: string
  createdAt: string
  updatedAt: string
  finishedAt: string | null
  claimableAt: string | null
  turns: number
  leaseOwner: string | null
  waitingOn: string | null
  parkReason: { code: string; message: string } | null
  error: { name: string; code: string | null; message: string } | null
  continuedTo: string | null
}

export function runJson(run: RunInfo): RunJson {
  return {
    id: run.id,
    workflow: run.workflow,
    version: run.version,
    status: run.status,
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
    finishedAt: run.finishedAt?.toISOString() ?? null,
    claimableAt: run.claimableAt?.toISOString() ?? null,
    turns: run.turns,
    leaseOwner: run.leaseOwner,
    waitingOn: run.waitingOn,
    parkReason:
      run.parkReason === null
        ? null
        : { code: run.parkReason.code, message: run.parkReason.message },
    error:
      run.error === null
        ? null
        : { name: run.error.name, code: run.error.code ?? null, message: run.error.message },
    continuedTo: run.continuedTo,
  }
}

function since(at: number, now: number): string {
  return string.milliseconds.format(Math.max(0, now - at))
}

function relative(at: number, now: number): string {
  return at > now ? `in ${since(now, at)}` : `${since(at, now)} ago`
}
