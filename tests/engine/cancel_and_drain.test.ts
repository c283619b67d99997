import assert from 'node:assert/strict'
import type { WorkflowContext } from '@cairn/core'
import { settle } from '@cairn/core/testing'
import { eachStore } from '../helpers/harness.ts'
import { HeldStore } from '../helpers/held_store.ts'

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

  test('a drain while a claim is in flight hands what it took back, unstarted', async (env) => {
    let started = 0
    const body = async (ctx: WorkflowContext) => ctx.localStep('work', () => (started++, 'done'))
    const client = await env.engine({ drive: false, instanceId: 'client' })
    client.register('job', 1, body)
    const { runId } = await client.start('job', null)
    const store = new HeldStore(env.handle.reopen())
    const engine = await env.engine({ instanceId: 'a', store, drive: false })
    engine.register('job', 1, body)
    const claim = store.holdNextClaim('after') // applied: the run is leased to `a`
    await engine.startDriving()
    await claim.reached
    const drained = engine.drain(5_000)
    await settle(10)
    claim.release()
    assert.deepEqual(await drained, { finished: false, released: 1 })
    await settle(20)
    assert.equal(started, 0, 'no step started after the drain began')
    const run = await engine.store.getRun(runId)
    assert.equal(run?.status, 'pending', 'handed back, claimable now')
    assert.equal(run?.availableAt, env.clock.now())
  })

  test('a drain while a start creates its run already claimed hands it back, unstarted', async (env) => {
    let started = 0
    const store = new HeldStore(env.handle.reopen())
    const engine = await env.engine({ instanceId: 'a', store })
    engine.register('job', 1, async (ctx) => ctx.localStep('work', () => (started++, 'done')))
    const created = store.holdNextAnswer((ops) => ops.some((op) => op.type === 'createRun'))
    const start = engine.start('job', null, { runId: 'r-1' })
    await created.reached
    const drained = engine.drain(5_000)
    await settle(10)
    created.release()
    assert.deepEqual(await start, { runId: 'r-1', existing: false })
    assert.deepEqual(await drained, { finished: false, released: 1 })
    await settle(20)
    assert.equal(started, 0, 'no step started after the drain began')
    assert.equal((await engine.store.getRun('r-1'))?.status, 'pending')
  })

  test('a run handed back twice during one drain (a start, then a claim in flight) counts once', async (env) => {
    const store = new HeldStore(env.handle.reopen())
    const engine = await env.engine({ instanceId: 'a', store, drive: false })
    engine.register('job', 1, async (ctx) => ctx.localStep('work', () => 'done'))
    const claim = store.holdNextClaim('before') // the first poll, in flight through the drain
    await engine.startDriving()
    await claim.reached
    const created = store.holdNextAnswer((ops) => ops.some((op) => op.type === 'createRun'))
    const start = engine.start('job', null, { runId: 'r-1' })
    await created.reached
    const drained = engine.drain(5_000)
    await settle(10)
    created.release() // handed back: pending, claimable now…
    assert.deepEqual(await start, { runId: 'r-1', existing: false })
    await settle(10)
    claim.release() // …so the claim in flight takes it, and the drain hands it back again
    assert.deepEqual(await drained, { finished: false, released: 1 })
    assert.equal((await engine.store.getRun('r-1'))?.status, 'pending')
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
