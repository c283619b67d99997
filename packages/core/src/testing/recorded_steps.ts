/**
 * Which positions of a history count as steps for the step expectations (expect_run.ts), and
 * how one is picked by name.
 */
import type { CheckpointKind } from '../contracts/records.ts'
import type { StepInfo } from '../engine/views.ts'

/**
 * The kinds that run user code with retries: `ctx.localStep` (and saga compensations, recorded
 * as `compensate:<name>`), `ctx.step` and `ctx.transaction`. Sleeps, signals, children and the
 * other positions are left out: they say how a run waited, not what work it did.
 */
const STEP_KINDS: ReadonlySet<CheckpointKind> = new Set(['local', 'step', 'transaction'])

export function isStepKind(kind: CheckpointKind): boolean {
  return STEP_KINDS.has(kind)
}

/** The history's steps, in position order. */
export function recordedSteps(history: readonly StepInfo[]): StepInfo[] {
  return history.filter((position) => isStepKind(position.kind))
}

/** Which of several steps of one name an expectation is about. */
export interface StepOccurrence {
  /**
   * 0 for the first step of that name in position order, 1 for the second, … Required when the
   * name occurs more than once (a step in a loop): the expectation fails naming the positions.
   */
  index?: number
}

/** The step, or the reason none can be picked (the name is missing, ambiguous or short). */
export function pickStep(
  steps: readonly StepInfo[],
  name: string,
  occurrence: StepOccurrence,
): StepInfo | string {
  const named = steps.filter((step) => step.name === name)
  const positions = named.map((step) => `#${step.seq}`).join(', ')
  if (named.length === 0) return `no step named "${name}" was recorded`
  if (occurrence.index === undefined) {
    if (named.length === 1) return named[0] as StepInfo
    return `step "${name}" was recorded ${named.length} times (${positions}): pass { index } to say which (0 for the first)`
  }
  return (
    named[occurrence.index] ??
    `step "${name}" has no occurrence ${occurrence.index}: it was recorded ${named.length === 1 ? 'once' : `${named.length} times`} (${positions})`
  )
}
