import type { StepInfo } from '@cairn/core'

/** One line of a run's timeline, as GET /orders/:id/timeline shows it. */
export interface TimelineEntry {
  position: number
  step: string
  kind: string
  status: string
  attempts: number
  startedAt: string
  updatedAt: string
  result?: unknown
  error?: { code: string | undefined; message: string }
  wakeAt?: string
}

/** The run's recorded steps (engine.getSteps), in position order, without internal fields. */
export function presentTimeline(steps: StepInfo[]): TimelineEntry[] {
  return steps.map((step) => ({
    position: step.seq,
    step: step.name,
    kind: step.kind,
    status: step.status,
    attempts: step.attempts,
    startedAt: step.startedAt.toISOString(),
    updatedAt: step.updatedAt.toISOString(),
    ...(step.output === undefined || step.output === null ? {} : { result: step.output }),
    ...(step.error === null
      ? {}
      : { error: { code: step.error.code, message: step.error.message } }),
    ...(step.wakeAt === null ? {} : { wakeAt: step.wakeAt.toISOString() }),
  }))
}
