/**
 * Remote steps in /metrics: tasks dispatched per transport and step, and their outcomes in the
 * step histogram like any step's.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Engine, MemoryStore, silentLogger } from '@cairn/core'
import { createMemoryTransport } from '@cairn/core/testing'
import { createWorker } from '@cairn/worker'
import { createMetrics } from '../../src/metrics/index.ts'
import { parseExposition, valueOf } from './exposition.ts'

void test('remote steps are counted: tasks dispatched, outcomes in the step histogram', async (t) => {
  const transport = createMemoryTransport()
  const engine = new Engine({
    store: new MemoryStore(),
    logger: silentLogger,
    transports: { remote: transport.engine() },
  })
  const metrics = createMetrics(engine)
  t.after(() => metrics.close())
  engine.registerStep('render', () => 'never here', { transport: 'remote' })
  engine.register('draw', 1, async (ctx) => [
    await ctx.step('render', 1),
    await ctx.step('render', 2),
  ])
  const worker = createWorker({
    transport: transport.worker(),
    steps: { render: (n: number) => n },
  })
  await worker.start()
  t.after(() => worker.close(100))
  await engine.startDriving()
  t.after(() => engine.close(0))
  const { runId } = await engine.start('draw', null)
  assert.equal((await engine.waitForRun(runId, { timeoutMs: 10_000 })).status, 'completed')
  const parsed = parseExposition(await metrics.render())
  assert.equal(
    valueOf(parsed, 'cairn_tasks_dispatched_total', { transport: 'remote', step: 'render' }),
    2,
  )
  assert.equal(
    valueOf(parsed, 'cairn_step_duration_seconds_count', {
      workflow: 'draw',
      step: 'render',
      outcome: 'completed',
    }),
    2,
  )
})
