import assert from 'node:assert/strict'
import diagnostics from 'node:diagnostics_channel'
import { FatalError } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

eachStore('lifecycle events', (test) => {
  test('run and step events reach subscribers and diagnostics_channel, without payloads', async (env) => {
    const engine = await env.engine()
    engine.register('ev', 1, async (ctx) => {
      let tries = 0
      await ctx.localStep(
        'flaky',
        () => {
          if (++tries < 2) throw new Error('first try fails')
          return 'ok'
        },
        { backoff: { delay: 10, jitter: 0 } },
      )
      await ctx.localStep('boom', () => {
        throw new FatalError('no')
      })
    })
    const seen: string[] = []
    const names = [
      'run:started',
      'run:completed',
      'run:failed',
      'step:started',
      'step:completed',
      'step:failed',
      'step:retried',
    ] as const
    for (const name of names)
      engine.on(name, (e) =>
        seen.push(`${name}:${'name' in e ? e.name : e.runId === undefined ? '?' : 'run'}`),
      )
    // Each start carries when its lease was found fresh, on the engine's monotonic clock (the
    // test's fake one here): just before the event itself.
    const checkGaps: number[] = []
    engine.on('step:started', (e) => checkGaps.push(env.clock.monotonic() - e.leaseCheckedAt))
    const channelEvents: unknown[] = []
    const onChannel = (message: unknown) => channelEvents.push(message)
    diagnostics.subscribe('cairn:run:failed', onChannel)
    try {
      const { runId } = await engine.start('ev', { secret: 'payload' })
      await env.skip(20)
      const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
      assert.equal(outcome.status, 'failed')
    } finally {
      diagnostics.unsubscribe('cairn:run:failed', onChannel)
    }
    assert.deepEqual(seen, [
      'run:started:run',
      'step:started:flaky',
      'step:retried:flaky',
      'step:started:flaky',
      'step:completed:flaky',
      'step:started:boom',
      'step:failed:boom',
      'run:failed:run',
    ])
    assert.equal(checkGaps.length, 3)
    for (const gap of checkGaps) assert.equal(gap, 0, 'checked at the same (fake) instant')
    assert.equal(channelEvents.length, 1)
    assert.ok(!JSON.stringify(channelEvents).includes('payload'), 'events never carry inputs')
  })

  test('a child run and a continueAsNew successor are started runs: one run:started each', async (env) => {
    const engine = await env.engine()
    engine.register('leaf', 1, async (_ctx, n: number) => n * 2)
    engine.register('rounds', 1, async (ctx, round: number) => {
      const doubled = await ctx.child<number>('leaf', round)
      if (round < 2) return ctx.continueAsNew(round + 1)
      return doubled
    })
    const started: string[] = []
    const ended: string[] = []
    engine.on('run:started', (e) => started.push(`${e.workflow}:${e.runId}`))
    engine.on('run:completed', (e) => ended.push(`${e.workflow}:${e.runId}`))
    engine.on('run:continued', (e) => ended.push(`${e.workflow}:${e.runId}`))
    const { runId } = await engine.start('rounds', 1)
    await env.skip(20)
    // waitForRun follows the continuation to the last run's outcome.
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'completed')
    assert.equal(outcome.output, 4)
    // rounds 1 → leaf, continued → rounds 2 → leaf: four runs created, four run:started.
    assert.equal(started.length, 4, started.join(', '))
    assert.equal(new Set(started).size, 4)
    assert.deepEqual(started.map((s) => s.split(':')[0]).sort(), [
      'leaf',
      'leaf',
      'rounds',
      'rounds',
    ])
    // Starts and endings balance: every started run ended exactly once.
    assert.deepEqual([...started].sort(), [...ended].sort())
  })
})
