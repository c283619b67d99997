/**
 * The one place tracing reaches into execution: a single nullable slot, read once per turn
 * and once per step attempt. Empty (the default), a turn and an attempt run exactly as
 * before — no context switch, no allocation. `@cairn/core/otel` fills it to make a turn's
 * span active while the workflow body runs and a step attempt's span active while the step
 * function runs (so a traceparent injected inside a step names the step's span). The core
 * never imports a tracing library: this contract is all it knows.
 */

export interface TurnTrace {
  runId: string
  workflow: string
  version: string
  /** The lease epoch of this turn (one per claim). */
  epoch: number
}

export interface AttemptTrace {
  runId: string
  workflow: string
  version: string
  seq: number
  name: string
  attempt: number
}

export interface TracingHooks {
  /** A turn begins: call `body` (it starts the workflow body) inside the turn's context. */
  turn<T>(turn: TurnTrace, body: () => T): T
  /** The turn of `runId` ended; `kind` says how (TurnEnd), `reason` why it was lost. */
  turnEnded(runId: string, kind: string, reason: string | undefined): void
  /** A step attempt: call `fn` (it calls the step function) inside the attempt's context. */
  attempt<T>(attempt: AttemptTrace, fn: () => T): T
  /** A step attempt logged a line (`stepCtx.log`): an event of its span. Optional. */
  stepLog?(attempt: AttemptLogRef, level: string, message: string): void
}

/** Which attempt logged a line (TracingHooks.stepLog). */
export interface AttemptLogRef {
  runId: string
  seq: number
  attempt: number
}

/** The installed hooks, or null. Read `.current` at the call: installs take effect at once. */
export const tracing: { current: TracingHooks | null } = { current: null }
