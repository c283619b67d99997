/**
 * OpenTelemetry for the tracing tests: an AsyncLocalStorage context manager, the W3C trace
 * context propagator and an in-memory exporter, registered once per test file.
 */
import { context, propagation } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import { instrumentCairn } from '@cairn/core/otel'
import type { Env } from '../helpers/harness.ts'

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
propagation.setGlobalPropagator(new W3CTraceContextPropagator())

export const exporter = new InMemorySpanExporter()
export const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
})

export function spansNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name)
}

/** The traceparent header `propagation.inject` writes for the active context. */
export function traceparent(): string | undefined {
  const headers: Record<string, string> = {}
  propagation.inject(context.active(), headers)
  return headers.traceparent
}

/** Instrumented for the test's duration only, with an empty exporter. */
export function traced(fn: (env: Env) => Promise<void>): (env: Env) => Promise<void> {
  return async (env) => {
    exporter.reset()
    const instrumentation = instrumentCairn({ tracerProvider })
    try {
      await fn(env)
    } finally {
      instrumentation.disable()
    }
  }
}
