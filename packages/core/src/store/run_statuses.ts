/**
 * Every run status, in lifecycle order: open ones first, then the terminal ones. One list for
 * whoever must check or offer statuses at runtime (CLI flags, the dashboard's filters, Ace
 * commands, conformance), so a new status cannot be missing from one of them.
 */
import type { RunStatus, TerminalStatus } from '../contracts/records.ts'

// A record keyed by the type: the compiler refuses it if a status is missing or unknown.
const ORDER: Record<RunStatus, number> = {
  queued: 0,
  pending: 1,
  running: 2,
  waiting: 3,
  blocked: 4,
  parked: 5,
  completed: 6,
  failed: 7,
  cancelled: 8,
  continued: 9,
  dead: 10,
}

export const RUN_STATUSES: readonly RunStatus[] = Object.freeze(
  (Object.keys(ORDER) as RunStatus[]).sort((a, b) => ORDER[a] - ORDER[b]),
)

export function isRunStatus(value: unknown): value is RunStatus {
  return typeof value === 'string' && Object.hasOwn(ORDER, value)
}

// Keyed by the type: a terminal status missing here fails to compile.
const TERMINAL: Record<TerminalStatus, true> = {
  completed: true,
  failed: true,
  cancelled: true,
  continued: true,
  dead: true,
}

/**
 * Completed, failed, cancelled, continued or dead: nothing but an operator's requeue (failed,
 * dead) will change the run again.
 */
export function isTerminalStatus(status: string): status is TerminalStatus {
  return Object.hasOwn(TERMINAL, status)
}

/**
 * The statuses of a run an engine may claim (RunInfo.claimableAt is set): pending, running
 * (its lease may expire), waiting and blocked (a timer may fall due). Parked and terminal runs have
 * no claimableAt. What "stuck" filters (claimableBefore) look at.
 */
export const CLAIMABLE_STATUSES: readonly RunStatus[] = Object.freeze([
  'pending',
  'running',
  'waiting',
  'blocked',
])
