/**
 * createMetrics on a real engine (memory and SQLite): workflows run, then the scraped
 * exposition text, parsed, holds exactly the counts those runs produce.
 */
import assert from 'node:assert/strict'
import { FatalError, type Engine } from '@cairn/core'
import { createMetrics } from '../../src/metrics/index.ts'
import { eachStore } from '../../../../tests/helpers/harness.ts'
import { parseExposition, samplesOf, valueOf } from './exposition.ts'

function registerWorkflows(engine: Engine): void {
  let chargeTries = 0
  engine.register('orders', 1, async (ctx, order: { id: number }) => {
    await ctx.localStep('reserve', () => order.id)
    await ctx.localStep(
      'charge',
      () => {
        // The first charge of the first order fails once: one retry in all.
        if (order.id === 1 && ++chargeTries === 1) throw new Error('card declined, try again')
        return 'charged'
      },
      { backoff: { delay: 10, jitter: 0 } },
    )
    return 'shipped'
  })
  engine.register('billing', 1, async (ctx) => {
    await ctx.localStep('invoice', () => {
      throw new FatalError('no customer')
    })
  })
  engine.register('inbox', 1, async (ctx) => ctx.waitForSignal('never'))
  engine.register('counter', 1, async (ctx, n: number) =>
    n < 2 ? ctx.continueAsNew(n + 1) : `counted to ${n}`,
  )
}

eachStore('metrics counts', (test) => {
  test('run counters, step histogram and retries match the runs', async (env) => {
    const engine = await env.engine({ drive: false })
    registerWorkflows(engine)
    const metrics = createMetrics(engine)
    await engine.startDriving()
    const ids = [
      (await engine.start('orders', { id: 1 })).runId,
      (await engine.start('orders', { id: 2 })).runId,
      (await engine.start('billing', null)).runId,
      (await engine.start('counter', 0)).runId,
    ]
    const waiting = (await engine.start('inbox', null)).runId
    await env.clock.advance(20)
    for (const id of ids) await engine.waitForRun(id, { timeoutMs: 5_000 }).catch(() => {})
    await engine.cancel(waiting)
    await env.settle()

    const scraped = parseExposition(await metrics.render())
    const runs = (word: string, workflow: string) =>
      valueOf(scraped, `cairn_runs_${word}_total`, { workflow })
    assert.equal(runs('started', 'orders'), 2)
    assert.equal(runs('started', 'billing'), 1)
    assert.equal(runs('started', 'inbox'), 1)
    // The continuation chain 0 → 1 → 2: three runs started (successors are created runs), two
    // ended continued and the last one completed — starts and endings balance.
    assert.equal(runs('started', 'counter'), 3)
    assert.equal(runs('continued', 'counter'), 2)
    assert.equal(runs('completed', 'counter'), 1)
    assert.equal(runs('completed', 'orders'), 2)
    assert.equal(runs('completed', 'billing'), undefined, 'no series for what never happened')
    assert.equal(runs('failed', 'billing'), 1)
    assert.equal(runs('cancelled', 'inbox'), 1)

    const steps = (step: string, outcome: string) =>
      valueOf(scraped, 'cairn_step_duration_seconds_count', {
        workflow: workflowOf(step),
        step,
        outcome,
      })
    assert.equal(steps('reserve', 'completed'), 2)
    assert.equal(steps('charge', 'completed'), 2)
    assert.equal(steps('charge', 'retried'), 1)
    assert.equal(steps('invoice', 'failed'), 1)
    assert.equal(
      valueOf(scraped, 'cairn_step_retries_total', { workflow: 'orders', step: 'charge' }),
      1,
    )
    assert.equal(samplesOf(scraped, 'cairn_step_retries_total').length, 1, 'one retried step')
    assert.equal(scraped.types.get('cairn_step_duration_seconds'), 'histogram')
    checkBuckets(scraped, { workflow: 'orders', step: 'charge', outcome: 'completed' }, 2)
    metrics.close()
  })
})

function workflowOf(step: string): string {
  return step === 'invoice' ? 'billing' : 'orders'
}

/** Buckets are cumulative, from 1 ms to 10 min, and +Inf equals the count. */
function checkBuckets(
  scraped: ReturnType<typeof parseExposition>,
  labels: Record<string, string>,
  count: number,
): void {
  const buckets = samplesOf(scraped, 'cairn_step_duration_seconds_bucket').filter((s) =>
    Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )
  const bounds = buckets.map((s) => s.labels.le)
  assert.equal(bounds[0], '0.001')
  assert.deepEqual(bounds.slice(-2), ['600', '+Inf'])
  const values = buckets.map((s) => s.value)
  values.forEach((v, i) => assert.ok(i === 0 || v >= (values[i - 1] as number), 'cumulative'))
  assert.equal(values.at(-1), count)
}
