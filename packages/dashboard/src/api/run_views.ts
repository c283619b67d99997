/**
 * What the API returns for runs and steps, built from the engine's read API. Run lists carry
 * summaries (no input or output); a run's detail and its steps carry payloads as JSON values
 * (json_value.ts).
 */
import type { RunInfo, SerializedError, StepInfo } from '@cairn/core'
import { toJsonValue } from './json_value.ts'

export interface RunSummary {
  id: string
  workflow: string
  version: string
  status: string
  createdAt: string
  updatedAt: string
  finishedAt: string | null
  waitingOn: string | null
  parentRunId: string | null
  tags: readonly string[]
  error: { name: string; message: string; code?: string } | null
}

export interface StepView {
  seq: number
  name: string
  kind: string
  status: string
  attempts: number
  order: number | null
  startedAt: string
  updatedAt: string
  wakeAt: string | null
  durationMs: number | null
  /** A remote step's recorded attempt: which worker ran it, when, and how long it was queued. */
  worker: { id: string; startedAt: string; finishedAt: string; queuedMs: number } | null
  /** A registered step's input (`ctx.step`); null for local steps and other kinds. */
  input: unknown
  output: unknown
  error: unknown
}

export function runSummary(run: RunInfo): RunSummary {
  return {
    id: run.id,
    workflow: run.workflow,
    version: run.version,
    status: run.status,
    createdAt: run.createdAt.toISOString(),
    updatedAt: run.updatedAt.toISOString(),
    finishedAt: iso(run.finishedAt),
    waitingOn: run.waitingOn,
    parentRunId: run.parentRunId,
    tags: run.tags,
    error: run.error === null ? null : shortError(run.error),
  }
}

const OPEN_STEP_STATUSES = new Set(['waiting', 'retrying'])

export function stepView(step: StepInfo): StepView {
  const open = OPEN_STEP_STATUSES.has(step.status)
  return {
    seq: step.seq,
    name: step.name,
    kind: step.kind,
    status: step.status,
    attempts: step.attempts,
    order: step.order,
    startedAt: step.startedAt.toISOString(),
    updatedAt: step.updatedAt.toISOString(),
    wakeAt: iso(step.wakeAt),
    durationMs: open ? null : step.updatedAt.getTime() - step.startedAt.getTime(),
    worker:
      step.worker === null
        ? null
        : {
            id: step.worker.id,
            startedAt: step.worker.startedAt.toISOString(),
            finishedAt: step.worker.finishedAt.toISOString(),
            queuedMs: step.worker.queuedMs,
          },
    input: toJsonValue(step.input),
    output: toJsonValue(step.output),
    error: toJsonValue(step.error),
  }
}

export function iso(date: Date | null): string | null {
  return date === null ? null : date.toISOString()
}

function shortError(error: SerializedError): RunSummary['error'] {
  const { name, message } = error
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? { name, message, code } : { name, message }
}
