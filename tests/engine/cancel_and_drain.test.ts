import assert from 'node:assert/strict'
import { eachStore } from '../helpers/harness.ts'

eachStore('cancel and drain', (test) => {
  test('cancelling a running run aborts its step, starts nothing new and records E_RUN_CANCELLED', async (env) => {
    const engine = await env.engine()
    let abortedWith: unknown = null
    let secondStepRan = false
    engine.register('long', 1, async (ctx) => {
      await ctx.localStep(
        'wait',
        ({ signal }) =>
          new Promise((_, reject) =>
            signal.addEventListener(
              'abort',
              () => ((abortedWith = signal.reason), reject(signal.reason)),
            ),
          ),
      )
      await ctx.localStep('next', () => (secondStepRan = true))
    })
    const { runId } = await engine.start('long', null)
    await env.settle()
    await engine.cancel(runId, { reason: 'customer asked' })
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'cancelled')
    if (outcome.status === 'cancelled') {
      assert.equal(outcome.error.code, 'E_RUN_CANCELLED')
      assert.equal(outcome.error.message, 'customer asked')
    }
    await env.settle()
    assert.ok(abortedWith !== null, 'the step signal was aborted')
    assert.equal(secondStepRan, false)
    assert.equal(engine.activeRuns, 0)
  })

  test('cancelling a waiting run ends it; cancelling unknown or finished runs is a clear error', async (env) => {
    const engine = await env.engine()
    engine.register('sleepy', 1, async (ctx) => {
      await ctx.sleep('1d')
      return 'woke'
    })
    const { runId } = await engine.start('sleepy', null)
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'waiting')
    await engine.cancel(runId)
    await env.skip(86_400_000)
    assert.equal((await engine.getRun(runId))?.status, 'cancelled')
    await assert.rejects(engine.cancel(runId), {
      code: 'E_RUN_TERMINAL',
      message: /already finished \(cancelled\)/,
    })
    await assert.rejects(engine.cancel('missing'), { code: 'E_RUN_NOT_FOUND' })
    await assert.rejects(engine.cancel('bad\u0000id'), { code: 'E_INVALID_ARGUMENT' })
  })

  test('drain hands unfinished runs back so another engine continues them at once', async (env) => {
    const first = await env.engine({ instanceId: 'a' })
    let firstStarted = 0
    first.register('job', 1, async (ctx) =>
      ctx.localStep(
        'work',
        ({ signal }) => (
          firstStarted++,
          new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
        ),
      ),
    )
    const { runId } = await first.start('job', null)
    await env.settle()
    const result = await first.drain(20)
    assert.deepEqual(result, { finished: false, released: 1 })
    assert.equal((await first.getRun(runId))?.status, 'pending')
    const second = await env.engine({ instanceId: 'b' })
    second.register('job', 1, async (ctx) => ctx.localStep('work', () => 'finished by b'))
    await env.skip(1)
    assert.deepEqual(await second.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'finished by b',
    })
    assert.equal(firstStarted, 1)
  })

  test('close resolves with the drain result, and a second close waits for the first', async (env) => {
    const engine = await env.engine()
    let openGate: () => void = () => {}
    const gate = new Promise<void>((resolve) => (openGate = resolve))
    engine.register('gated', 1, async (ctx) => ctx.localStep('work', () => gate.then(() => 'done')))
    const { runId } = await engine.start('gated', null)
    await env.settle()
    const outcome = engine.waitForRun(runId, { timeoutMs: 60_000 })
    const first = engine.close(60_000)
    let secondResult: unknown = null
    // A shutdown hook closing after a signal handler already did: it must not return early.
    const second = engine.close(0).then((result) => (secondResult = result))
    await env.settle()
    assert.equal(secondResult, null, 'the second close waits while the step still runs')
    openGate()
    assert.deepEqual(await first, { finished: true, released: 0 })
    await second
    assert.deepEqual(secondResult, { finished: true, released: 0 })
    assert.equal((await outcome).status, 'completed')
  })
})
