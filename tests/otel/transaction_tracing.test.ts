/**
 * @cairn/core/otel around ctx.transaction (a Knex store: SQLite through better-sqlite3): the
 * transaction function runs with its attempt's span active, so a traceparent injected there
 * names that span.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { context, propagation } from '@opentelemetry/api'
import { instrumentCairn } from '@cairn/core/otel'
import { KnexStore } from '@cairn/sql/knex'
import knex, { type Knex } from 'knex'
import {
  spansNamed,
  tracerProvider,
  withEngines,
} from '../../packages/core/test/otel/tracing_env.ts'

const instrumentation = instrumentCairn({ tracerProvider })
after(() => instrumentation.disable())

void test('a transactional step runs with its attempt span active', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-otel-'))
  const app = knex({
    client: 'better-sqlite3',
    connection: { filename: join(dir, 'cairn.db') },
    useNullAsDefault: true,
  })
  try {
    await withEngines(async (env) => {
      const engine = await env.engine()
      let injected: string | undefined
      engine.register('tx', '1', async (ctx) =>
        ctx.transaction('record', async (trx: Knex.Transaction) => {
          await trx.raw('SELECT 1')
          const headers: Record<string, string> = {}
          propagation.inject(context.active(), headers)
          injected = headers.traceparent
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
    }, new KnexStore(app))
  } finally {
    await app.destroy()
    rmSync(dir, { recursive: true, force: true })
  }
})
