/**
 * What a run waits on, position by position, read from its open checkpoints: a sleep's timer,
 * a signal (and its timeout), a child run, a webhook, a breakpoint, a broadcast event, an
 * update, or a step's next retry.
 */
import type { StepInfo } from '@cairn/core'
import { iso } from './run_views.ts'

/** What a wait is read from: a checkpoint's position, kind, status and due time. */
export type OpenPosition = Pick<StepInfo, 'seq' | 'name' | 'kind' | 'status' | 'wakeAt'>

export type Wait =
  | { kind: 'timer'; seq: number; name: string; until: string | null }
  /** seq null: a signal wait without a timeout keeps no checkpoint; the run's waitingOn names it. */
  | { kind: 'signal'; seq: number | null; name: string; timeoutAt: string | null }
  | { kind: 'child'; seq: number; runId: string | null }
  | { kind: 'webhook' | 'breakpoint' | 'event' | 'update'; seq: number; name: string }
  | { kind: 'retry'; seq: number; name: string; at: string | null }

/**
 * `childRunIds`: the child run started at each position (by the child's parentSeq);
 * `waitingOn`: the run's description of its waits, for the signal waits that have no record.
 */
export function waitsOf(
  steps: readonly OpenPosition[],
  childRunIds: ReadonlyMap<number, string>,
  waitingOn: string | null,
): Wait[] {
  const waits: Wait[] = []
  for (const step of steps) {
    const wait = waitOf(step, childRunIds)
    if (wait !== null) waits.push(wait)
  }
  const recorded = new Set(waits.filter((w) => w.kind === 'signal').map((w) => w.name))
  for (const name of unrecordedSignals(waitingOn))
    if (!recorded.has(name)) waits.push({ kind: 'signal', seq: null, name, timeoutAt: null })
  return waits
}

// waitingOn lists waits as `signal "<name>"` parts joined by "; " (engine turn_end.ts).
function unrecordedSignals(waitingOn: string | null): string[] {
  if (waitingOn === null) return []
  return waitingOn
    .split('; ')
    .map((part) => /^signal "(.+)"$/.exec(part)?.[1])
    .filter((name): name is string => name !== undefined)
}

function waitOf(step: OpenPosition, childRunIds: ReadonlyMap<number, string>): Wait | null {
  const { seq, name } = step
  if (step.status === 'retrying') return { kind: 'retry', seq, name, at: iso(step.wakeAt) }
  if (step.status !== 'waiting') return null
  switch (step.kind) {
    case 'sleep':
      return { kind: 'timer', seq, name, until: iso(step.wakeAt) }
    case 'signal':
      return { kind: 'signal', seq, name, timeoutAt: iso(step.wakeAt) }
    case 'child':
      return { kind: 'child', seq, runId: childRunIds.get(seq) ?? null }
    case 'webhook':
    case 'breakpoint':
    case 'event':
    case 'update':
      return { kind: step.kind, seq, name }
    default:
      return null
  }
}
