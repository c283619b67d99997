/**
 * instrumentCairn(): engine events become OpenTelemetry spans (docs/tracing.md). Installs
 * the core's tracing hooks (execution/tracing_hooks.ts) — so the step attempt's span is the
 * active context while the step function runs — and subscribes to the outcome events on
 * node:diagnostics_channel. Process-wide: every engine in the process is traced, as
 * diagnostics channels are process-wide; one instrumentation at a time.
 */
import diagnostics from 'node:diagnostics_channel'
import { trace, type TracerProvider } from '@opentelemetry/api'
import type { EngineEvents } from '../engine/events.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import { tracing } from '../execution/tracing_hooks.ts'
import { checkOptionKeys, optionNames, type OptionsSpec } from '../util/known_keys.ts'
import { OpenSpans } from './open_spans.ts'

export interface InstrumentOptions {
  /** Where spans go; default: the global provider (`trace.getTracerProvider()`). */
  tracerProvider?: TracerProvider
}

export interface CairnInstrumentation {
  /** Stop tracing: uninstall the hooks, unsubscribe, end spans still open. Idempotent. */
  disable(): void
}

const INSTRUMENT_OPTIONS: OptionsSpec = {
  call: 'instrumentCairn',
  known: optionNames<InstrumentOptions>({ tracerProvider: true }),
}

/** The tracer's name: the instrumentation scope spans carry. */
export const TRACER_NAME = '@cairn/core/otel'

export function instrumentCairn(options: InstrumentOptions = {}): CairnInstrumentation {
  checkOptionKeys(options, INSTRUMENT_OPTIONS)
  if (tracing.current !== null)
    throw new InvalidArgumentError(
      'instrumentCairn: Cairn is already instrumented in this process; disable() that one first',
    )
  const provider = options.tracerProvider ?? trace.getTracerProvider()
  const spans = new OpenSpans(provider.getTracer(TRACER_NAME))
  const subscriptions = subscribe(spans)
  tracing.current = spans
  let enabled = true
  return {
    disable() {
      if (!enabled) return
      enabled = false
      if (tracing.current === spans) tracing.current = null
      for (const [name, listener] of subscriptions) diagnostics.unsubscribe(name, listener)
      spans.endAll()
    },
  }
}

type Subscription = [string, (message: unknown) => void]

function subscribe(spans: OpenSpans): Subscription[] {
  const on = <E extends keyof EngineEvents>(
    name: E,
    listener: (event: EngineEvents[E]) => void,
  ): Subscription => [`cairn:${name}`, listener as (message: unknown) => void]
  const subscriptions = [
    on('step:completed', (e) => spans.stepEnded({ ...e, outcome: 'completed', error: null })),
    on('step:failed', (e) => spans.stepEnded({ ...e, outcome: 'failed' })),
    on('step:retried', (e) => spans.stepEnded({ ...e, outcome: 'retried' })),
    on('run:failed', (e) => spans.runFailed(e.runId, e.error)),
  ]
  for (const [name, listener] of subscriptions) diagnostics.subscribe(name, listener)
  return subscriptions
}
