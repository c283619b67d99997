/**
 * createMetrics beyond counting: recoveries and takeovers across two engines, bounded label
 * values, close() on a shared registry, and refused options.
 */
import assert from 'node:assert/strict'
import { ErrorCodes } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { Counter, Registry } from 'prom-client'
import { createMetrics } from '../../src/metrics/index.ts'
import { eachStore } from '../../../../tests/helpers/harness.ts'
import { parseExposition, samplesOf, valueOf } from './exposition.ts'

const hang = () => new Promise<never>(() => {})

eachStore('metrics lifecycle', (test) => {
  test('a lease taken over from a stalled engine counts as recovery and takeover', async (env) => {
    // The first engine's clock never moves: it never renews its lease.
    const first = await env.engine({ leaseMs: 10_000, clock: new FakeClock(env.clock.now()) })
    first.register('job', 1, async (ctx) => ctx.localStep('work', hang))
    const { runId } = await first.start('job', null)
    await env.settle()
    const second = await env.engine({ leaseMs: 10_000, drive: false })
    second.register('job', 1, async (ctx) => ctx.localStep('work', () => 'done'))
    const metrics = createMetrics(second)
    await second.startDriving()
    await env.clock.advance(20_000)
    assert.equal((await second.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    const scraped = parseExposition(await metrics.render())
    assert.equal(valueOf(scraped, 'cairn_runs_recovered_total', { workflow: 'job' }), 1)
    assert.equal(valueOf(scraped, 'cairn_lease_takeovers_total', { workflow: 'job' }), 1)
    assert.equal(
      valueOf(scraped, 'cairn_runs_resumed_total', { workflow: 'job', from: 'history' }),
      1,
    )
    metrics.close()
  })

  test('resumes count by where they came from; the run cache gauge counts kept runs', async (env) => {
    // Room for one suspended run: the first run to suspend is evicted by the second.
    const engine = await env.engine({ maxCachedRuns: 1, drive: false })
    engine.register('nap', 1, async (ctx, name: string) => {
      await ctx.sleep('1h')
      return ctx.localStep('wake', () => name)
    })
    const metrics = createMetrics(engine)
    await engine.startDriving()
    const runs = [await engine.start('nap', 'a'), await engine.start('nap', 'b')]
    await env.settle()
    let scraped = parseExposition(await metrics.render())
    assert.equal(valueOf(scraped, 'cairn_run_cache_runs', {}), 1)
    await env.skip(3_600_000)
    for (const { runId } of runs)
      assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    scraped = parseExposition(await metrics.render())
    const resumed = (from: string) =>
      valueOf(scraped, 'cairn_runs_resumed_total', { workflow: 'nap', from })
    assert.deepEqual([resumed('cache'), resumed('history')], [1, 1])
    assert.equal(valueOf(scraped, 'cairn_run_cache_runs', {}), 0)
    metrics.close()
  })
})

eachStore('metrics labels and registry', (test) => {
  test('step names beyond the limit are counted as _other', async (env) => {
    const engine = await env.engine({ drive: false })
    engine.register('many', 1, async (ctx) => {
      for (const name of ['a', 'b', 'c', 'd']) await ctx.localStep(name, () => name)
    })
    const metrics = createMetrics(engine, { maxSteps: 2 })
    await engine.startDriving()
    const { runId } = await engine.start('many', null)
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    const scraped = parseExposition(await metrics.render())
    const steps = samplesOf(scraped, 'cairn_step_duration_seconds_count').map((s) => [
      s.labels.step,
      s.value,
    ])
    assert.deepEqual(steps.sort(), [
      ['_other', 2],
      ['a', 1],
      ['b', 1],
    ])
    metrics.close()
  })

  test('workflow names beyond maxWorkflows count as _other; long names are cut to 128', async (env) => {
    const engine = await env.engine({ drive: false })
    const long = 'w'.repeat(128)
    const steps = (ctx: { localStep(name: string, fn: () => number): Promise<number> }) =>
      // Two step names alike in their first 128 characters: one series, counted twice.
      ctx
        .localStep(`${'s'.repeat(128)}-first`, () => 1)
        .then(() => ctx.localStep(`${'s'.repeat(128)}-second`, () => 2))
    for (const name of ['first', `${long}-long`, 'third']) engine.register(name, 1, steps)
    const metrics = createMetrics(engine, { maxWorkflows: 2 })
    await engine.startDriving()
    for (const name of ['first', `${long}-long`, 'third'])
      await engine.waitForRun((await engine.start(name, null)).runId, { timeoutMs: 5_000 })
    const scraped = parseExposition(await metrics.render())
    const started = samplesOf(scraped, 'cairn_runs_started_total').map((s) => [
      s.labels.workflow,
      s.value,
    ])
    assert.deepEqual(started.sort(), [
      ['_other', 1],
      ['first', 1],
      [long, 1],
    ])
    const stepSeries = samplesOf(scraped, 'cairn_step_duration_seconds_count')
    assert.deepEqual(stepSeries.map((s) => [s.labels.workflow, s.labels.step, s.value]).sort(), [
      ['_other', 's'.repeat(128), 2],
      ['first', 's'.repeat(128), 2],
      [long, 's'.repeat(128), 2],
    ])
    metrics.close()
  })

  test('close() unsubscribes and removes only its own metrics from a shared registry', async (env) => {
    const engine = await env.engine({ drive: false })
    engine.register('one', 1, async () => 'done')
    const registry = new Registry()
    new Counter({ name: 'app_requests_total', help: 'mine', registers: [registry] }).inc(3)
    const metrics = createMetrics(engine, { registry, prefix: 'wf_' })
    await engine.startDriving()
    await engine.waitForRun((await engine.start('one', null)).runId, { timeoutMs: 5_000 })
    let scraped = parseExposition(await registry.metrics())
    assert.equal(valueOf(scraped, 'wf_runs_completed_total', { workflow: 'one' }), 1)
    assert.equal(valueOf(scraped, 'app_requests_total'), 3)
    metrics.close()
    scraped = parseExposition(await registry.metrics())
    assert.deepEqual([...scraped.types.keys()], ['app_requests_total'])
    // A new set on the same registry starts from zero: the old one no longer listens.
    const again = createMetrics(engine, { registry, prefix: 'wf_' })
    await engine.waitForRun((await engine.start('one', null)).runId, { timeoutMs: 5_000 })
    scraped = parseExposition(await again.render())
    assert.equal(valueOf(scraped, 'wf_runs_completed_total', { workflow: 'one' }), 1)
    again.close()
  })

  test('bad options are refused with E_INVALID_ARGUMENT', async (env) => {
    const engine = await env.engine({ drive: false })
    const bad = [
      { prefix: 'has space' },
      { prefix: '9starts_with_digit' },
      { backlogCacheMs: -1 },
      { backlogTimeoutMs: 1.5 },
      { maxSteps: Number.NaN },
    ]
    for (const options of bad)
      assert.throws(
        () => createMetrics(engine, options),
        (error: { code?: string }) => error.code === ErrorCodes.INVALID_ARGUMENT,
        JSON.stringify(options),
      )
  })
})
