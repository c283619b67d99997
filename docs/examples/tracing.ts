/** docs/tracing.md's example, runnable: spans for a run, and a traceparent sent from a step. */
import assert from 'node:assert/strict'
import { context, propagation } from '@opentelemetry/api'
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks'
import { W3CTraceContextPropagator } from '@opentelemetry/core'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base'
import { instrumentCairn } from '@cairn/core/otel'
import { createTestEngine } from '@cairn/core/testing'

// Usually done once by your OpenTelemetry SDK setup (NodeSDK registers all three).
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
propagation.setGlobalPropagator(new W3CTraceContextPropagator())
const exporter = new InMemorySpanExporter()
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
})

const tracing = instrumentCairn({ tracerProvider })
const t = await createTestEngine()
let sent: Record<string, string> = {}
t.engine.register('checkout', 1, async (ctx) => {
  await ctx.localStep('charge', async () => {
    const headers: Record<string, string> = {}
    propagation.inject(context.active(), headers) // what an HTTP client instrumentation does
    sent = headers
  })
})
const { runId } = await t.engine.start('checkout', null)
await t.engine.waitForRun(runId)

const spans = exporter.getFinishedSpans()
const step = spans.find((span) => span.name === 'step charge')
const turn = spans.find((span) => span.name === 'run checkout')
assert.equal(step?.parentSpanContext?.spanId, turn?.spanContext().spanId)
assert.equal(sent.traceparent, `00-${step?.spanContext().traceId}-${step?.spanContext().spanId}-01`)

tracing.disable()
await t.close()
console.log(spans.map((span) => `${span.name} ${JSON.stringify(span.attributes)}`).join('\n'))
