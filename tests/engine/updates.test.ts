import assert from 'node:assert/strict'
import { eachStore } from '../helpers/harness.ts'

eachStore('updates', (test) => {
  test('an update is validated in the run: accepted ones reach the workflow, rejected ones change nothing', async (env) => {
    const engine = await env.engine()
    engine.register('cart', 1, async (ctx) => {
      const items: string[] = []
      while (items.length < 2) {
        const item = await ctx.onUpdate<string>('add', {
          validate: (arg) =>
            typeof arg === 'string' && arg !== '' ? true : 'an item is a non-empty string',
        })
        items.push(item)
      }
      return items
    })
    const { runId } = await engine.start('cart', null)
    await env.settle()
    assert.deepEqual(await engine.update(runId, 'add', 'tea', { updateId: 'u1' }), {
      updateId: 'u1',
      accepted: true,
      reason: null,
    })
    assert.deepEqual(await engine.update(runId, 'add', '', { updateId: 'u2' }), {
      updateId: 'u2',
      accepted: false,
      reason: 'an item is a non-empty string',
    })
    // A retried call with the same id is the same update: decided once.
    assert.deepEqual(await engine.update(runId, 'add', '', { updateId: 'u2' }), {
      updateId: 'u2',
      accepted: false,
      reason: 'an item is a non-empty string',
    })
    assert.equal((await engine.update(runId, 'add', 'milk')).accepted, true)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual((outcome as { output?: unknown }).output, ['tea', 'milk'])
  })

  test('an update sent before the run waits for it is decided when it gets there', async (env) => {
    const engine = await env.engine()
    engine.register('later', 1, async (ctx) => {
      await ctx.sleep('1h')
      return ctx.onUpdate<number>('set', { validate: (n) => n > 0 || 'must be positive' })
    })
    const { runId } = await engine.start('later', null)
    await env.settle()
    const pending = engine.update(runId, 'set', 5, { timeoutMs: 10_000 })
    await env.skip(3_600_000)
    assert.equal((await pending).accepted, true)
    assert.equal(
      ((await engine.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      5,
    )
  })

  test('a caller times out if the run never decides; a validator that throws rejects', async (env) => {
    const engine = await env.engine()
    engine.register('strict', 1, async (ctx) => {
      await ctx
        .onUpdate<string>('x', {
          validate: () => {
            throw new Error('validator blew up')
          },
        })
        .catch(() => undefined)
    })
    engine.register('busy', 1, async (ctx) => ctx.waitForSignal('never'))
    const strict = await engine.start('strict', null)
    await env.settle()
    const decision = await engine.update(strict.runId, 'x', 'anything')
    assert.deepEqual([decision.accepted, decision.reason], [false, 'validator blew up'])
    const busy = await engine.start('busy', null)
    await env.settle()
    await assert.rejects(engine.update(busy.runId, 'x', 1, { timeoutMs: 50 }), /not decided/)
  })

  test('onUpdate refuses a bad timeoutMs in the workflow, before taking a position', async (env) => {
    const engine = await env.engine()
    engine.register('bad', 1, async (ctx) => {
      try {
        await ctx.onUpdate('x', { timeoutMs: -1 })
        return 'waited'
      } catch (error) {
        return `${(error as { code?: string }).code}: ${(error as Error).message}`
      }
    })
    const { runId } = await engine.start('bad', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, {
      runId,
      status: 'completed',
      output:
        'E_INVALID_ARGUMENT: onUpdate timeoutMs must be an integer from 0 to 8640000000000000, got -1',
    })
    assert.deepEqual(await engine.getSteps(runId), [], 'no position recorded')
  })
})
