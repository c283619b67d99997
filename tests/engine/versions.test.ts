import assert from 'node:assert/strict'
import { eachStore } from '../helpers/harness.ts'

eachStore('versions, patches and non-determinism', (test) => {
  test('changed code under a running run parks it with the recorded and the attempted step', async (env) => {
    const v1 = await env.engine({ instanceId: 'deploy-1' })
    v1.register('order', 1, async (ctx) => {
      await ctx.localStep('reserve', () => 1)
      await ctx.sleep('1h')
      await ctx.localStep('charge', () => 2)
    })
    const { runId } = await v1.start('order', null)
    await env.settle()
    await v1.close()
    const v1b = await env.engine({ instanceId: 'deploy-2' })
    v1b.register('order', 1, async (ctx) => {
      await ctx.localStep('reserve-stock', () => 1) // renamed in place: not deterministic
      await ctx.sleep('1h')
    })
    await env.skip(3_600_000)
    await env.settle()
    const run = await v1b.getRun(runId)
    assert.equal(run?.status, 'parked')
    assert.equal(run?.parkReason?.code, 'E_NON_DETERMINISM')
    assert.deepEqual(run?.parkReason?.details, {
      recorded: { seq: 0, name: 'reserve', kind: 'local' },
      attempted: { seq: 0, name: 'reserve-stock', kind: 'local' },
    })
    assert.match(
      run?.parkReason?.message ?? '',
      /position 0: history records local "reserve", the workflow code asked for local "reserve-stock"/,
    )
  })

  test('a run executes only its start version; new runs take the newest', async (env) => {
    const engine = await env.engine()
    engine.register('greet', 1, async (ctx) => {
      await ctx.sleep('1h')
      return 'v1'
    })
    const old = await engine.start('greet', null)
    engine.register('greet', 2, async (ctx) => {
      await ctx.sleep('1h')
      return 'v2'
    })
    const fresh = await engine.start('greet', null)
    const pinned = await engine.start('greet', null, { version: 1 })
    await env.skip(3_600_000)
    assert.deepEqual(await engine.waitForRun(old.runId, { timeoutMs: 5_000 }), {
      runId: old.runId,
      status: 'completed',
      output: 'v1',
    })
    assert.deepEqual(await engine.waitForRun(fresh.runId, { timeoutMs: 5_000 }), {
      runId: fresh.runId,
      status: 'completed',
      output: 'v2',
    })
    assert.deepEqual(await engine.waitForRun(pinned.runId, { timeoutMs: 5_000 }), {
      runId: pinned.runId,
      status: 'completed',
      output: 'v1',
    })
    await assert.rejects(engine.start('greet', null, { version: 3 }), {
      code: 'E_WORKFLOW_NOT_REGISTERED',
    })
    await assert.rejects(engine.start('nope', null), { code: 'E_WORKFLOW_NOT_REGISTERED' })
    assert.throws(() => engine.register('greet', 2, async () => null), {
      code: 'E_DUPLICATE_WORKFLOW',
    })
  })

  test('a run whose version no engine has is parked visibly, not retried, and resumes when the code returns', async (env) => {
    const old = await env.engine({ instanceId: 'old' })
    old.register('ship', 7, async (ctx) => {
      await ctx.sleep('1h')
      return 'shipped'
    })
    const { runId } = await old.start('ship', null)
    await env.settle()
    await old.close()
    let claims = 0
    const next = await env.engine({ instanceId: 'new', parkUnrunnableAfterMs: 60_000 })
    next.register('ship', 8, async () => 'v8 code must never run a v7 run')
    next.on('run:started', () => claims++)
    await env.skip(3_600_000 + 30_000)
    assert.equal(
      (await next.getRun(runId))?.status,
      'waiting',
      'not parked before the grace period',
    )
    await env.skip(60_000)
    const parked = await next.getRun(runId)
    assert.equal(parked?.status, 'parked')
    assert.equal(parked?.parkReason?.code, 'E_WORKFLOW_NOT_REGISTERED')
    await env.skip(600_000)
    assert.equal((await next.getRun(runId))?.turns, 1, 'never claimed while parked')
    const fixed = await env.engine({ instanceId: 'fixed' })
    fixed.register('ship', 7, async (ctx) => {
      await ctx.sleep('1h')
      return 'shipped'
    })
    await env.skip(1)
    assert.deepEqual(await fixed.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'shipped',
    })
    assert.equal(claims, 0)
  })

  test('patched() is false where the history was recorded without the change, true where a run reaches it', async (env) => {
    const first = await env.engine({ instanceId: 'a' })
    first.register('p', 1, async (ctx) => {
      await ctx.localStep('one', () => 1)
      const two = await ctx.localStep('two', () => 'old path')
      await ctx.sleep('1h')
      return two
    })
    const old = await first.start('p', null)
    await env.settle()
    await first.close()
    const second = await env.engine({ instanceId: 'b' })
    second.register('p', 1, async (ctx) => {
      await ctx.localStep('one', () => 1)
      const two = ctx.patched('new-two')
        ? await ctx.localStep('two-new', () => 'new path')
        : await ctx.localStep('two', () => 'old path')
      await ctx.sleep('1h')
      return two
    })
    const fresh = await second.start('p', null)
    await env.skip(3_600_000)
    assert.deepEqual(await second.waitForRun(old.runId, { timeoutMs: 5_000 }), {
      runId: old.runId,
      status: 'completed',
      output: 'old path',
    })
    assert.deepEqual(await second.waitForRun(fresh.runId, { timeoutMs: 5_000 }), {
      runId: fresh.runId,
      status: 'completed',
      output: 'new path',
    })
    const freshSteps = await second.getSteps(fresh.runId)
    assert.deepEqual(
      freshSteps.map((s) => [s.kind, s.name]),
      [
        ['local', 'one'],
        ['patch', 'new-two'],
        ['local', 'two-new'],
        ['sleep', 'sleep'],
      ],
    )
    const oldSteps = await second.getSteps(old.runId)
    assert.deepEqual(
      oldSteps.map((s) => [s.kind, s.name]),
      [
        ['local', 'one'],
        ['local', 'two'],
        ['sleep', 'sleep'],
      ],
    )
  })

  test('sideEffect records its value once and replays it', async (env) => {
    const engine = await env.engine()
    let calls = 0
    engine.register('se', 1, async (ctx) => {
      const id = await ctx.sideEffect(() => `id-${++calls}`)
      await ctx.sleep('1h')
      return id
    })
    const { runId } = await engine.start('se', null)
    await env.skip(3_600_000)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'id-1',
    })
    assert.equal(calls, 1)
  })
})
