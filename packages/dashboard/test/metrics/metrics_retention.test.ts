/**
 * createMetrics and retention (docs/retention.md), on every store: runs a policy's sweeps
 * deleted, by policy (subtrees included), and the expired runs a sweep kept because an open
 * run still needs them; no series for a policy that deleted nothing.
 */
import assert from 'node:assert/strict'
import { createMetrics } from '../../src/metrics/index.ts'
import { eachStore } from '../../../../tests/helpers/harness.ts'
import { parseExposition, samplesOf, valueOf } from './exposition.ts'

const HOUR = 3_600_000

eachStore('metrics retention', (test) => {
  test('runs_deleted_total and retention_refused_total follow the sweeps, by policy', async (env) => {
    const engine = await env.engine({
      drive: false,
      retention: {
        policies: [
          { name: 'old-completed', statuses: ['completed'], maxAge: '1h' },
          { name: 'failed', statuses: ['failed'], maxCount: 5 },
        ],
      },
    })
    engine.register('double', 1, async (ctx, n: number) => ctx.localStep('d', () => n * 2))
    engine.register('sum', 1, async (ctx, n: number) => {
      const a = await ctx.child<number>('double', n)
      const b = await ctx.child<number>('double', n + 1)
      return a + b
    })
    engine.register('wait', 1, async (ctx) => ctx.waitForSignal('go'))
    // Completes at once, leaving its child open: the sweep keeps the tree.
    engine.register('spawn', 1, async (ctx) => {
      ctx.startChild('wait', null)
      return 'spawned'
    })
    const metrics = createMetrics(engine)
    await engine.startDriving()
    for (const [workflow, runId] of [
      ['sum', 'sum-1'],
      ['sum', 'sum-2'],
      ['spawn', 'spawner'],
    ] as const) {
      await engine.start(workflow, 1, { runId })
      await engine.waitForRun(runId, { timeoutMs: 10_000 })
    }
    await env.settle()
    await env.skip(2 * HOUR)
    await env.settle()

    const scraped = parseExposition(await metrics.render())
    assert.equal(scraped.types.get('cairn_runs_deleted_total'), 'counter')
    assert.equal(scraped.types.get('cairn_retention_refused_total'), 'counter')
    // Two sums, each with its two children.
    assert.equal(valueOf(scraped, 'cairn_runs_deleted_total', { policy: 'old-completed' }), 6)
    const refused = valueOf(scraped, 'cairn_retention_refused_total', { policy: 'old-completed' })
    assert.ok(
      refused !== undefined && refused >= 1,
      `the spawner is passed over at every sweep (${refused})`,
    )
    assert.notEqual(await engine.getRun('spawner'), null)
    assert.deepEqual(
      samplesOf(scraped, 'cairn_runs_deleted_total').map((s) => s.labels.policy),
      ['old-completed'],
      'no series for a policy that deleted nothing',
    )
    assert.equal(samplesOf(scraped, 'cairn_retention_refused_total').length, 1)
    metrics.close()
    const closed = parseExposition(await metrics.registry.metrics())
    assert.equal(closed.types.has('cairn_runs_deleted_total'), false, 'removed on close')
  })
})
