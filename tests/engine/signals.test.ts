import assert from 'node:assert/strict'
import {
  InvalidArgumentError,
  RunNotFoundError,
  RunTerminalError,
  SignalTimeoutError,
  type WorkflowContext,
} from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

eachStore('signals', (test) => {
  test('a waiting run receives a signal, holding no lease meanwhile', async (env) => {
    const engine = await env.engine()
    engine.register('approve', 1, async (ctx) => {
      const decision = await ctx.waitForSignal<{ ok: boolean }>('decision')
      return decision.ok ? 'approved' : 'rejected'
    })
    const { runId } = await engine.start('approve', null)
    await env.settle()
    const waiting = await engine.getRun(runId)
    assert.equal(waiting?.status, 'waiting')
    assert.match(waiting?.waitingOn ?? '', /signal "decision"/)
    assert.equal(waiting?.wakeAt, null, 'no timer: only a signal wakes it')
    assert.equal(engine.activeRuns, 0)
    const receipt = await engine.signal({ runId, name: 'decision' }, { ok: true })
    assert.deepEqual(receipt, { runId, seq: 1, duplicate: false })
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'approved',
    })
    const [step] = await engine.getSteps(runId)
    assert.equal(step?.kind, 'signal')
    assert.deepEqual(step?.output, { ok: true })
  })

  test('a signal sent before the wait is kept and received when the run gets there', async (env) => {
    const engine = await env.engine()
    engine.register('later', 1, async (ctx) => {
      await ctx.sleep('1h')
      return ctx.waitForSignal('go')
    })
    const { runId } = await engine.start('later', null)
    await env.settle()
    await engine.signal({ runId, name: 'go' }, 'early bird')
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'waiting', 'still asleep')
    await env.skip(3_600_000)
    assert.equal(
      ((await engine.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      'early bird',
    )
  })

  test('signals are received in acceptance order, each by one wait; a resend with the same signalId is accepted once', async (env) => {
    const engine = await env.engine()
    engine.register('collect', 1, async (ctx) => {
      const got: unknown[] = []
      for (let i = 0; i < 3; i++) got.push(await ctx.waitForSignal('item'))
      return got
    })
    const { runId } = await engine.start('collect', null)
    await env.settle()
    const token = { runId, name: 'item' }
    await engine.signal(token, 'a', { signalId: 'a' })
    const resend = await engine.signal(token, 'a again', { signalId: 'a' })
    assert.deepEqual(resend, { runId, seq: 1, duplicate: true })
    await engine.signal(token, 'b')
    await engine.signal(token, 'c', { signalId: 'c' })
    assert.deepEqual(
      ((await engine.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      ['a', 'b', 'c'],
    )
  })

  test('signals go to the wait of their name only', async (env) => {
    const engine = await env.engine()
    engine.register('two', 1, async (ctx) => {
      const [x, y] = await Promise.all([ctx.waitForSignal('x'), ctx.waitForSignal('y')])
      return `${String(x)}${String(y)}`
    })
    const { runId } = await engine.start('two', null)
    await env.settle()
    await engine.signal({ runId, name: 'y' }, 'Y')
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'waiting', 'y alone does not finish it')
    await engine.signal({ runId, name: 'x' }, 'X')
    assert.equal(
      ((await engine.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      'XY',
    )
  })

  test('a signal to an unknown or finished run is a clear error', async (env) => {
    const engine = await env.engine()
    engine.register('quick', 1, async () => 'done')
    const { runId } = await engine.start('quick', null)
    await engine.waitForRun(runId, { timeoutMs: 5_000 })
    await assert.rejects(engine.signal({ runId: 'nobody', name: 'go' }, 1), RunNotFoundError.is)
    await assert.rejects(engine.signal({ runId, name: 'go' }, 1), (error: unknown) => {
      assert.ok(RunTerminalError.is(error))
      assert.equal(error.details.status, 'completed')
      return true
    })
    await assert.rejects(engine.signal({ runId, name: 'bad name' }, 1), InvalidArgumentError.is)
    await assert.rejects(engine.signal({ runId, name: '' }, 1), InvalidArgumentError.is)
  })

  test('a payload the codec refuses is rejected and nothing is stored', async (env) => {
    const engine = await env.engine()
    engine.register('w', 1, async (ctx) => ctx.waitForSignal('go', { timeoutMs: 1_000 }))
    const { runId } = await engine.start('w', null)
    await env.settle()
    await assert.rejects(
      engine.signal({ runId, name: 'go' }, () => 1),
      /E_NOT_SERIALIZABLE|serializ/i,
    )
    assert.equal((await engine.getRun(runId))?.status, 'waiting')
    await env.skip(1_000)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'failed', 'the bad payload never reached the wait')
  })

  test('a timed-out wait throws SignalTimeoutError, which the workflow may catch; it replays the same', async (env) => {
    // Replay is the point: no run cache, so each wake replays the body.
    const engine = await env.engine({ maxCachedRuns: 0 })
    let bodies = 0
    engine.register('patient', 1, async (ctx) => {
      bodies++
      try {
        await ctx.waitForSignal('reply', { timeoutMs: 60_000 })
        return 'replied'
      } catch (error) {
        if (!SignalTimeoutError.is(error)) throw error
        await ctx.sleep('1m') // one more suspension: the timeout is replayed from history
        return `gave up: ${error.code}`
      }
    })
    const { runId } = await engine.start('patient', null)
    await env.settle()
    assert.ok((await engine.getRun(runId))?.wakeAt, 'the deadline is a timer')
    await env.skip(59_999)
    assert.equal((await engine.getRun(runId))?.status, 'waiting', 'not a millisecond early')
    await env.skip(1)
    await env.skip(60_000)
    assert.equal(
      ((await engine.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      'gave up: E_SIGNAL_TIMEOUT',
    )
    assert.equal(bodies, 3, 'start, timeout, after the sleep')
    await assert.rejects(engine.signal({ runId, name: 'reply' }, 'too late'), RunTerminalError.is)
  })

  test('race: a signal accepted while the run executes (after its inbox was read) wakes it at once', async (env) => {
    const engine = await env.engine()
    const stepStarted = Promise.withResolvers<void>()
    const release = Promise.withResolvers<void>()
    engine.register('busy', 1, async (ctx) => {
      const [, got] = await Promise.all([
        ctx.localStep('slow', async () => {
          stepStarted.resolve()
          await release.promise
        }),
        ctx.waitForSignal('go'),
      ])
      return got
    })
    const { runId } = await engine.start('busy', null)
    await stepStarted.promise
    // The turn has registered its wait and read an empty inbox; the run is running, not waiting.
    await engine.signal({ runId, name: 'go' }, 'caught')
    assert.equal((await engine.getRun(runId))?.status, 'running')
    release.resolve()
    // No clock movement and no poll: the suspend itself must see the signal.
    assert.equal(
      ((await engine.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      'caught',
    )
  })

  test('race: a signal and its timeout due together — the signal present at the turn wins, and it replays so', async (env) => {
    const first = await env.engine({ instanceId: 'first' })
    const body = async (ctx: WorkflowContext) => {
      const got = await ctx.waitForSignal('go', { timeoutMs: 10_000 }).catch(() => 'timed out')
      await ctx.sleep('1h')
      return got
    }
    first.register('edge', 1, body)
    const { runId } = await first.start('edge', null)
    await env.settle()
    await first.close()
    const sender = await env.engine({ instanceId: 'sender', drive: false })
    await env.skip(20_000) // the deadline passes while no engine runs...
    await sender.signal({ runId, name: 'go' }, 'signal') // ...and the signal lands after it
    const second = await env.engine({ instanceId: 'second' })
    second.register('edge', 1, body)
    await env.settle()
    await env.skip(3_600_000)
    assert.equal(
      ((await second.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      'signal',
    )
  })

  test('a received signal is replayed after a restart, never received twice', async (env) => {
    const first = await env.engine({ instanceId: 'first' })
    const body = async (ctx: WorkflowContext) => {
      const a = await ctx.waitForSignal('n')
      await ctx.sleep('1h')
      const b = await ctx.waitForSignal('n', { timeoutMs: 60_000 }).catch(() => 'none')
      return [a, b]
    }
    first.register('twice', 1, body)
    const { runId } = await first.start('twice', null)
    await env.settle()
    await first.signal({ runId, name: 'n' }, 'one')
    await env.settle()
    await first.close()
    const second = await env.engine({ instanceId: 'second' })
    second.register('twice', 1, body)
    await env.skip(3_600_000)
    await env.skip(60_000)
    assert.deepEqual(
      ((await second.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      ['one', 'none'],
    )
  })

  test('Promise.race of a signal and a sleep replays the same winner', async (env) => {
    const engine = await env.engine()
    engine.register('race', 1, async (ctx) => {
      const winner = await Promise.race([
        ctx.waitForSignal('go').then(() => 'signal'),
        ctx.sleep('10m').then(() => 'timer'),
      ])
      await ctx.sleep('1h') // suspend again: the race is replayed from history
      return winner
    })
    const { runId } = await engine.start('race', null)
    await env.settle()
    await env.skip(600_000)
    await engine.signal({ runId, name: 'go' }, null) // the loser arrives after the race was decided
    await env.skip(3_600_000)
    assert.equal(
      ((await engine.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      'timer',
    )
  })

  test('signalWithStart starts the run once and delivers every signal', async (env) => {
    const engine = await env.engine()
    engine.register('cart', 1, async (ctx) => {
      const items = [await ctx.waitForSignal('add'), await ctx.waitForSignal('add')]
      return items
    })
    const a = await engine.signalWithStart(
      'cart',
      null,
      { runId: 'cart-1' },
      { name: 'add', payload: 'apple' },
    )
    const b = await engine.signalWithStart(
      'cart',
      null,
      { runId: 'cart-1' },
      { name: 'add', payload: 'pear' },
    )
    assert.equal(a.existing, false)
    assert.equal(b.existing, true)
    assert.deepEqual([a.signal.seq, b.signal.seq], [1, 2])
    assert.deepEqual(
      ((await engine.waitForRun('cart-1', { timeoutMs: 5_000 })) as { output?: unknown }).output,
      ['apple', 'pear'],
    )
  })

  test('waitForSignal rejects bad arguments in the workflow', async (env) => {
    const engine = await env.engine()
    engine.register('bad', 1, async (ctx) => {
      await ctx.waitForSignal('ok', { timeoutMs: -1 })
    })
    const { runId } = await engine.start('bad', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'failed')
    assert.match(JSON.stringify(outcome), /timeoutMs/)
  })

  test('race: a wake seen by two engines at once runs the run once', async (env) => {
    let after = 0
    const body = async (ctx: WorkflowContext) => {
      const got = await ctx.waitForSignal('go')
      await ctx.localStep('after', () => ++after)
      return got
    }
    const a = await env.engine({ instanceId: 'a' })
    const b = await env.engine({ instanceId: 'b' })
    a.register('dup', 1, body)
    b.register('dup', 1, body)
    const { runId } = await a.start('dup', null)
    await env.settle()
    const sender = await env.engine({ instanceId: 'sender', drive: false })
    await sender.signal({ runId, name: 'go' }, 'once')
    // Both engines poll at the same instant and both see the woken run: one claim wins.
    await env.skip(60_000)
    const outcome = await a.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: 'once' })
    assert.equal(after, 1)
  })
})
