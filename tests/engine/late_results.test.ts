/**
 * Cancellation race: a step in flight when its run is cancelled finishes afterwards. Its outcome
 * is recorded at its position (the timeline shows what the step did) and nothing acts on it:
 * the run stays cancelled, the body never resumes, no later step starts, no retry.
 */
import assert from 'node:assert/strict'
import type { Engine } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

interface Gate {
  open(): void
  wait: Promise<void>
}

function gate(): Gate {
  const { promise, resolve } = Promise.withResolvers<void>()
  return { open: resolve, wait: promise }
}

function registerCharge(engine: Engine, g: Gate, log: string[], outcome: 'ok' | 'throw') {
  engine.register('charge', 1, async (ctx) => {
    const receipt = await ctx.localStep(
      'charge card',
      async ({ signal }) => {
        log.push(`started (aborted: ${signal.aborted})`)
        await g.wait
        log.push(`finished (aborted: ${signal.aborted})`)
        if (outcome === 'throw') throw new Error('card declined')
        return 'receipt-1'
      },
      { retries: 3 },
    )
    await ctx.localStep('ship', () => log.push(`shipped with ${receipt}`))
    return receipt
  })
}

async function stepsOf(engine: Engine, runId: string) {
  return (await engine.getSteps(runId)).map((s) => [
    s.seq,
    s.name,
    s.status,
    s.output,
    s.error?.message,
  ])
}

eachStore('a late step result after cancel', (test) => {
  test('is recorded at its position, and the run stays cancelled with nothing acted on', async (env) => {
    const engine = await env.engine()
    const g = gate()
    const log: string[] = []
    registerCharge(engine, g, log, 'ok')
    const { runId } = await engine.start('charge', null)
    await env.settle()
    assert.deepEqual(log, ['started (aborted: false)'])
    await engine.cancel(runId, { reason: 'customer gave up' })
    g.open()
    await env.settle()
    assert.deepEqual(log, ['started (aborted: false)', 'finished (aborted: true)'])
    assert.equal((await engine.getRun(runId))?.status, 'cancelled')
    assert.deepEqual(await stepsOf(engine, runId), [
      [0, 'charge card', 'completed', 'receipt-1', undefined],
    ])
  })

  test('cancelled by another engine: the holder learns it from the fenced write and records the result', async (env) => {
    const engine = await env.engine()
    const operator = await env.engine({ drive: false })
    const g = gate()
    const log: string[] = []
    registerCharge(engine, g, log, 'ok')
    const { runId } = await engine.start('charge', null)
    await env.settle()
    await operator.cancel(runId, { reason: 'from the dashboard' })
    g.open()
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'cancelled')
    assert.deepEqual(await stepsOf(engine, runId), [
      [0, 'charge card', 'completed', 'receipt-1', undefined],
    ])
    assert.ok(!log.some((line) => line.startsWith('shipped')), 'no later step started')
  })

  test('a late failure is recorded as failed, with no retry', async (env) => {
    const engine = await env.engine()
    const g = gate()
    const log: string[] = []
    registerCharge(engine, g, log, 'throw')
    const { runId } = await engine.start('charge', null)
    await env.settle()
    await engine.cancel(runId)
    g.open()
    await env.settle()
    await env.skip(60_000)
    assert.equal(log.filter((line) => line.startsWith('started')).length, 1, 'one attempt only')
    assert.equal((await engine.getRun(runId))?.status, 'cancelled')
    assert.deepEqual(await stepsOf(engine, runId), [
      [0, 'charge card', 'failed', undefined, 'card declined'],
    ])
  })

  test('cancelled by another engine during a retry back-off: the retry does not start', async (env) => {
    const engine = await env.engine()
    const operator = await env.engine({ drive: false })
    let attempts = 0
    engine.register('flaky', 1, async (ctx) =>
      ctx.localStep(
        'charge card',
        () => {
          attempts++
          throw new Error('gateway timeout')
        },
        // A second's back-off: held in memory under the lease, no write ends it.
        { retries: 3, backoff: { type: 'fixed', delay: 1_000 } },
      ),
    )
    const { runId } = await engine.start('flaky', null)
    await env.settle()
    assert.equal(attempts, 1)
    await operator.cancel(runId, { reason: 'from the dashboard' })
    await env.skip(5_000)
    assert.equal(attempts, 1, 'no retry started after the cancel')
    assert.equal((await engine.getRun(runId))?.status, 'cancelled')
    assert.equal(engine.activeRuns, 0, 'the holder let go')
  })
})
