/**
 * OpenTelemetry for the tracing tests: an AsyncLocalStorage context manager, the W3C trace
 * context propagator and an in-memory exporter, registered once per test file; and engines
 * on one store (memory unless given) with a fake clock.
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
import { Engine, MemoryStore, silentLogger, type EngineOptions } from '../../src/index.ts'
import type { StateStore } from '../../src/contracts/index.ts'
import { FakeClock, settle } from '../../src/testing/index.ts'

context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
propagation.setGlobalPropagator(new W3CTraceContextPropagator())

export const exporter = new InMemorySpanExporter()
export const tracerProvider = new BasicTracerProvider({
  spanProcessors: [new SimpleSpanProcessor(exporter)],
})

export interface Env {
  clock: FakeClock
  engine(options?: Partial<EngineOptions>): Promise<Engine>
}

/** Engines on `store` (default: a new memory store), which is closed afterwards. */
export async function withEngines(
  fn: (env: Env) => Promise<void>,
  store: StateStore = new MemoryStore(),
): Promise<void> {
  exporter.reset()
  const clock = new FakeClock()
  const engines: Engine[] = []
  clock.settler = async () => {
    await settle()
    await Promise.all(engines.map((engine) => engine.whenQuiet()))
  }
  const env: Env = {
    clock,
    async engine(options = {}) {
      const engine = new Engine({
        store,
        clock,
        logger: silentLogger,
        instanceId: `engine-${engines.length + 1}`,
        ...options,
      })
      engines.push(engine)
      return engine
    },
  }
  try {
    await fn(env)
  } finally {
    for (const engine of engines) await engine.close(50).catch(() => {})
    await store.close().catch(() => {})
  }
}

export function spansNamed(name: string): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((span) => span.name === name)
}
