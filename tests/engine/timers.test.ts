import assert from 'node:assert/strict'
import type { WorkflowContext } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

eachStore('durable timers', (test) => {
  test('a long sleep suspends the run (no lease held) and fires once, never early', async (env) => {
    const engine = await env.engine()
    let after = 0
    engine.register('nap', 1, async (ctx) => {
      await ctx.sleep('2h')
      await ctx.localStep('after', () => ++after)
      return 'rested'
    })
    const start = env.clock.now()
    const { runId } = await engine.start('nap', null)
    await env.settle()
    const waiting = await engine.getRun(runId)
    assert.equal(waiting?.status, 'waiting')
    assert.equal(waiting?.wakeAt?.getTime(), start + 7_200_000)
    assert.match(waiting?.waitingOn ?? '', /sleep 2h until/)
    assert.equal(engine.activeRuns, 0, 'a waiting run holds no memory here')
    await env.skip(7_199_999)
    assert.equal((await engine.getRun(runId))?.status, 'waiting', 'not a millisecond early')
    await env.skip(1)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'rested',
    })
    assert.equal(after, 1)
    const [sleep] = await engine.getSteps(runId)
    assert.equal(sleep?.status, 'completed')
    assert.ok(
      (sleep?.updatedAt.getTime() ?? 0) >= start + 7_200_000,
      'fired at or after its due time',
    )
  })

  test('a timer due while every engine was down fires once after restart', async (env) => {
    const first = await env.engine({ instanceId: 'one' })
    const body = async (ctx: WorkflowContext) => {
      await ctx.sleepUntil(new Date(env.clock.now() + 60_000))
      return 'fired'
    }
    first.register('t', 1, body)
    const { runId } = await first.start('t', null)
    await env.settle()
    await first.close()
    await env.skip(3_600_000) // nobody is running
    const observer = await env.engine({ instanceId: 'observer', drive: false })
    assert.equal((await observer.getRun(runId))?.status, 'waiting')
    let fired = 0
    const second = await env.engine({ instanceId: 'two' })
    second.register('t', 1, async (ctx) => {
      await ctx.sleep('1m')
      fired++
      return 'fired'
    })
    await env.skip(1)
    assert.deepEqual(await second.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'fired',
    })
    assert.equal(fired, 1)
  })

  test('short sleeps stay in memory; sleep rejects bad durations', async (env) => {
    const engine = await env.engine()
    engine.register('short', 1, async (ctx) => {
      await ctx.sleep(500)
      await ctx.sleep('1.5s')
      return 'ok'
    })
    engine.register('bad', 1, async (ctx) => {
      try {
        await ctx.sleep('soon')
      } catch (error) {
        return (error as { code: string }).code
      }
    })
    const { runId } = await engine.start('short', null)
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'running')
    await env.skip(2_000)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'ok',
    })
    const bad = await engine.start('bad', null)
    assert.deepEqual(await engine.waitForRun(bad.runId, { timeoutMs: 5_000 }), {
      runId: bad.runId,
      status: 'completed',
      output: 'E_INVALID_ARGUMENT',
    })
  })
})
