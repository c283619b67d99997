import assert from 'node:assert/strict'
import { RunNotFoundError } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

eachStore('setEvent / getEvent', (test) => {
  test('getEvent reads the latest value a run published, while it waits and after it ends', async (env) => {
    const engine = await env.engine()
    engine.register('progress', 1, async (ctx) => {
      await ctx.setEvent('stage', 'charging')
      await ctx.setEvent('stage', { name: 'shipping', eta: '2d' })
      await ctx.sleep('1h')
      await ctx.setEvent('stage', 'done')
      return 'ok'
    })
    const { runId } = await engine.start('progress', null)
    await env.settle()
    assert.deepEqual(await engine.getEvent(runId, 'stage'), { name: 'shipping', eta: '2d' })
    assert.equal(await engine.getEvent(runId, 'other'), undefined)
    await env.skip(3_600_000)
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(await engine.getEvent(runId, 'stage'), 'done')
    const kinds = (await engine.getSteps(runId)).map((s) => s.kind)
    assert.deepEqual(kinds, ['set_event', 'set_event', 'sleep', 'set_event'], 'recorded once each')
    await assert.rejects(engine.getEvent('nobody', 'stage'), RunNotFoundError.is)
  })

  test('getEvent with timeoutMs waits for a value set later', async (env) => {
    const engine = await env.engine()
    engine.register('later', 1, async (ctx) => {
      await ctx.sleep('10m')
      await ctx.setEvent('link', 'https://pay.example/abc')
    })
    const { runId } = await engine.start('later', null)
    await env.settle()
    const reading = engine.getEvent(runId, 'link', { timeoutMs: 10_000 })
    await env.skip(600_000)
    assert.equal(await reading, 'https://pay.example/abc')
    assert.equal(await engine.getEvent(runId, 'never', { timeoutMs: 20 }), undefined)
  })

  test('a value the codec refuses throws in the workflow and records nothing', async (env) => {
    const engine = await env.engine()
    engine.register('bad', 1, async (ctx) => {
      try {
        await ctx.setEvent('fn', () => 1)
        return 'stored'
      } catch (error) {
        return (error as { code?: string }).code
      }
    })
    const { runId } = await engine.start('bad', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal((outcome as { output?: unknown }).output, 'E_NOT_SERIALIZABLE')
    assert.deepEqual(await engine.getSteps(runId), [])
  })
})
