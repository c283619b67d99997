/**
 * @cairn/core/otel around ctx.transaction, on the stores that run transactional steps (the
 * Knex stores): the transaction function runs with its attempt's span active, so a
 * traceparent injected there names that span.
 */
import assert from 'node:assert/strict'
import { instrumentCairn } from '@cairn/core/otel'
import type { Knex } from 'knex'
import { eachStore } from '../helpers/harness.ts'
import { exporter, spansNamed, traceparent, tracerProvider } from './otel_setup.ts'

eachStore('OpenTelemetry tracing of transactions', (test) => {
  test(
    'a transactional step runs with its attempt span active',
    async (env) => {
      assert.ok(env.handle.store.runTransactionalStep, 'a store that runs transactional steps')
      exporter.reset()
      const instrumentation = instrumentCairn({ tracerProvider })
      try {
        const engine = await env.engine({ drive: false })
        let injected: string | undefined
        engine.register('tx', '1', async (ctx) =>
          ctx.transaction('record', async (trx: Knex.Transaction) => {
            await trx.raw('SELECT 1')
            injected = traceparent()
            return 'recorded'
          }),
        )
        await engine.startDriving()
        const { runId } = await engine.start('tx', null)
        assert.equal((await engine.waitForRun(runId, { timeoutMs: 10_000 })).status, 'completed')
        const [step] = spansNamed('step record')
        const [turn] = spansNamed('run tx')
        assert.equal(step?.attributes['cairn.step.outcome'], 'completed')
        assert.equal(step?.parentSpanContext?.spanId, turn?.spanContext().spanId)
        const ids = step?.spanContext()
        assert.equal(injected, `00-${ids?.traceId}-${ids?.spanId}-01`)
      } finally {
        instrumentation.disable()
      }
      // Only the Knex stores share the app's connection and run transactional steps.
    },
    (storeName) => storeName.startsWith('knex'),
  )
})
