/**
 * The spans in flight in this process: one per run execution turn, one per step attempt.
 * Turn spans start as the workflow body begins and end with the turn (tracing_hooks.ts);
 * step spans start as the step function is called and end with the attempt's outcome event
 * (step:completed / failed / retried, via diagnostics_channel). A step span still open when
 * its turn ends (the lease was lost, the run cancelled) ends as `abandoned`.
 */
import {
  SpanKind,
  SpanStatusCode,
  context,
  trace,
  type Span,
  type Tracer,
} from '@opentelemetry/api'
import type { SerializedError } from '../contracts/codec.ts'
import type {
  AttemptLogRef,
  AttemptTrace,
  TracingHooks,
  TurnTrace,
} from '../execution/tracing_hooks.ts'
import { ATTR } from './attributes.ts'

interface OpenTurn {
  span: Span
  /** Set by run:failed, which comes just before the turn ends. */
  error: SerializedError | null
}

export interface StepOutcome {
  runId: string
  seq: number
  attempt: number
  outcome: 'completed' | 'failed' | 'retried'
  error: SerializedError | null
  delayMs?: number
}

const ERROR_ENDS = new Set(['failed', 'lost'])

export class OpenSpans implements TracingHooks {
  readonly #tracer: Tracer
  readonly #turns = new Map<string, OpenTurn>()
  /** Open step spans by run, then by attempt: a turn's end finds its run's spans directly. */
  readonly #steps = new Map<string, Map<string, Span>>()

  constructor(tracer: Tracer) {
    this.#tracer = tracer
  }

  turn<T>(turn: TurnTrace, body: () => T): T {
    this.#endTurn(turn.runId, 'superseded', undefined) // a turn whose end was never seen
    const span = this.#tracer.startSpan(`run ${turn.workflow}`, {
      kind: SpanKind.INTERNAL,
      // Each turn is its own trace: the poll that claimed it is no meaningful parent.
      root: true,
      attributes: {
        [ATTR.workflow]: turn.workflow,
        [ATTR.version]: turn.version,
        [ATTR.runId]: turn.runId,
        [ATTR.epoch]: turn.epoch,
      },
    })
    this.#turns.set(turn.runId, { span, error: null })
    return context.with(trace.setSpan(context.active(), span), body)
  }

  turnEnded(runId: string, kind: string, reason: string | undefined): void {
    this.#endTurn(runId, kind, reason)
  }

  attempt<T>(attempt: AttemptTrace, fn: () => T): T {
    const turn = this.#turns.get(attempt.runId)
    const parent =
      turn === undefined ? context.active() : trace.setSpan(context.active(), turn.span)
    const span = this.#tracer.startSpan(
      `step ${attempt.name}`,
      {
        kind: SpanKind.INTERNAL,
        attributes: {
          [ATTR.workflow]: attempt.workflow,
          [ATTR.version]: attempt.version,
          [ATTR.runId]: attempt.runId,
          [ATTR.stepName]: attempt.name,
          [ATTR.seq]: attempt.seq,
          [ATTR.attempt]: attempt.attempt,
        },
      },
      parent,
    )
    let spans = this.#steps.get(attempt.runId)
    if (spans === undefined) this.#steps.set(attempt.runId, (spans = new Map()))
    spans.set(attemptKey(attempt.seq, attempt.attempt), span)
    return context.with(trace.setSpan(parent, span), fn)
  }

  /** A line the attempt logged: an event `log` of its span, at the time it was logged. */
  stepLog(ref: AttemptLogRef, level: string, message: string): void {
    const span = this.#steps.get(ref.runId)?.get(attemptKey(ref.seq, ref.attempt))
    span?.addEvent('log', { [ATTR.logLevel]: level, [ATTR.logMessage]: message })
  }

  stepEnded(outcome: StepOutcome): void {
    const spans = this.#steps.get(outcome.runId)
    const key = attemptKey(outcome.seq, outcome.attempt)
    const span = spans?.get(key)
    if (spans === undefined || span === undefined) return
    spans.delete(key)
    if (spans.size === 0) this.#steps.delete(outcome.runId)
    span.setAttribute(ATTR.stepOutcome, outcome.outcome)
    if (outcome.delayMs !== undefined) span.setAttribute(ATTR.retryDelayMs, outcome.delayMs)
    if (outcome.error !== null) failed(span, outcome.error)
    span.end()
  }

  runFailed(runId: string, error: SerializedError): void {
    const turn = this.#turns.get(runId)
    if (turn !== undefined) turn.error = error
  }

  /** Ends everything still open (instrumentation disabled). */
  endAll(): void {
    for (const runId of [...this.#turns.keys()]) this.#endTurn(runId, 'untraced', undefined)
    for (const runId of [...this.#steps.keys()]) this.#abandonSteps(runId)
  }

  #endTurn(runId: string, kind: string, reason: string | undefined): void {
    const turn = this.#turns.get(runId)
    if (turn === undefined) return
    this.#turns.delete(runId)
    this.#abandonSteps(runId)
    turn.span.setAttribute(ATTR.turnOutcome, kind)
    if (turn.error !== null) failed(turn.span, turn.error)
    else if (ERROR_ENDS.has(kind))
      turn.span.setStatus({ code: SpanStatusCode.ERROR, message: reason ?? kind })
    turn.span.end()
  }

  /** End the open step spans of `runId` as abandoned. */
  #abandonSteps(runId: string): void {
    const spans = this.#steps.get(runId)
    if (spans === undefined) return
    this.#steps.delete(runId)
    for (const span of spans.values()) {
      span.setAttribute(ATTR.stepOutcome, 'abandoned')
      span.end()
    }
  }
}

function attemptKey(seq: number, attempt: number): string {
  return `${seq}:${attempt}`
}

/** Error status and an exception event: the error's name and message, never a payload. */
function failed(span: Span, error: SerializedError): void {
  const message = typeof error?.message === 'string' ? error.message : 'failed'
  const name = typeof error?.name === 'string' ? error.name : 'Error'
  span.recordException({ name, message })
  span.setStatus({ code: SpanStatusCode.ERROR, message })
}
