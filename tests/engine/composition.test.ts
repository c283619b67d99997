/**
 * Promise-style composition over ctx primitives: Promise.race / all / allSettled over steps,
 * sleeps, signals and children, replayed deterministically. A race's losers are recorded when
 * they finish and never re-run on replay.
 */
import assert from 'node:assert/strict'
import { FatalError } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

function output(outcome: unknown): unknown {
  return (outcome as { output?: unknown }).output
}

eachStore('composition', (test) => {
  test("a race's loser is recorded when it finishes and never re-runs on replay", async (env) => {
    const engine = await env.engine()
    const { promise: slow, resolve: finishSlow } = Promise.withResolvers<void>()
    const calls = { slow: 0 }
    engine.register('race', 1, async (ctx) => {
      const winner = await Promise.race([
        ctx.localStep('slow lookup', async () => {
          calls.slow++
          await slow
          return 'lookup'
        }),
        ctx.sleep('1m').then(() => 'timer'),
      ])
      await ctx.sleep('1h') // the next turn replays the race from history
      return winner
    })
    const { runId } = await engine.start('race', null)
    await env.settle()
    await env.skip(60_000) // the timer wins while the lookup still runs
    finishSlow() // the loser finishes after the race was decided
    await env.settle()
    const steps = await engine.getSteps(runId)
    assert.deepEqual(
      steps.map((s) => [s.seq, s.kind, s.status, s.output]),
      [
        [0, 'local', 'completed', 'lookup'],
        [1, 'sleep', 'completed', undefined],
        [2, 'sleep', 'waiting', undefined],
      ],
      'the loser is recorded',
    )
    await env.skip(3_600_000)
    assert.equal(output(await engine.waitForRun(runId, { timeoutMs: 5_000 })), 'timer')
    assert.equal(calls.slow, 1, 'the loser ran once')
  })

  test('a signal wins a race against a long step while the step still runs (sent here or from another process)', async (env) => {
    const engine = await env.engine()
    const other = await env.engine({ drive: false })
    const gates = new Map<string, () => void>()
    engine.register('race', 1, async (ctx, who: string) => {
      const winner = await Promise.race([
        ctx.localStep('slow', async () => {
          await new Promise<void>((resolve) => gates.set(who, resolve))
          return 'step'
        }),
        ctx.waitForSignal<string>('stop').then((s) => `signal ${s}`),
      ])
      return winner
    })
    const here = await engine.start('race', 'here')
    const there = await engine.start('race', 'there')
    await env.settle()
    await engine.signal({ runId: here.runId, name: 'stop' }, 'now') // read by the busy turn at once
    await other.signal({ runId: there.runId, name: 'stop' }, 'later') // read at its next inbox poll
    await env.skip(60_000)
    for (const run of [here.runId, there.runId]) {
      const steps = await engine.getSteps(run)
      assert.deepEqual(
        steps.map((s) => [s.seq, s.kind, s.status]),
        [[1, 'signal', 'completed']],
        'the signal is received while the step still runs',
      )
    }
    for (const open of gates.values()) open()
    assert.equal(output(await engine.waitForRun(here.runId, { timeoutMs: 5_000 })), 'signal now')
    assert.equal(output(await engine.waitForRun(there.runId, { timeoutMs: 5_000 })), 'signal later')
  })

  test("a child's result wins a race against a long step while the step still runs", async (env) => {
    const engine = await env.engine()
    let open = () => {}
    engine.register('quick', 1, async (ctx) => ctx.localStep('answer', () => 42))
    engine.register('race', 1, async (ctx) => {
      const winner = await Promise.race([
        ctx.localStep('slow', async () => {
          await new Promise<void>((resolve) => (open = resolve))
          return 'step'
        }),
        ctx.child<number>('quick', null).then((n) => `child ${n}`),
      ])
      return winner
    })
    const { runId } = await engine.start('race', null)
    await env.settle()
    const steps = await engine.getSteps(runId)
    assert.deepEqual(
      steps.map((s) => [s.seq, s.kind, s.status]),
      [[1, 'child', 'completed']],
      "the child's result is received while the step still runs",
    )
    open()
    assert.equal(output(await engine.waitForRun(runId, { timeoutMs: 5_000 })), 'child 42')
  })

  test('a signal wait times out on time while a long step runs', async (env) => {
    const engine = await env.engine()
    let open = () => {}
    engine.register('timeout', 1, async (ctx) => {
      const step = ctx.localStep('slow', async () => {
        await new Promise<void>((resolve) => (open = resolve))
        return 'step'
      })
      try {
        await ctx.waitForSignal('never', { timeoutMs: 30_000 })
        return 'signalled'
      } catch (error) {
        const code = (error as { code?: string }).code
        open()
        return `${code} then ${await step}`
      }
    })
    const { runId } = await engine.start('timeout', null)
    await env.settle()
    await env.skip(30_000)
    assert.equal(
      output(await engine.waitForRun(runId, { timeoutMs: 5_000 })),
      'E_SIGNAL_TIMEOUT then step',
    )
  })

  test('Promise.all and allSettled over steps, sleeps, signals and children replay the same', async (env) => {
    const engine = await env.engine()
    const calls = { a: 0, b: 0, child: 0 }
    engine.register('child', 1, async (ctx, n: number) =>
      ctx.localStep('double', () => {
        calls.child++
        return n * 2
      }),
    )
    engine.register('fan', 1, async (ctx) => {
      const all = await Promise.all([
        ctx.localStep('a', () => ++calls.a),
        ctx.sleep('5m').then(() => 'slept'),
        ctx.waitForSignal<string>('go'),
        ctx.child<number>('child', 21),
      ])
      const settled = await Promise.allSettled([
        ctx.localStep('b', () => {
          calls.b++
          throw new FatalError('b broke')
        }),
        ctx.sleep('1h').then(() => 'late'),
      ])
      const shown = settled.map((s) =>
        s.status === 'fulfilled' ? s.value : (s.reason as Error).message,
      )
      return { all, settled: shown }
    })
    const { runId } = await engine.start('fan', null)
    await env.settle()
    await engine.signal({ runId, name: 'go' }, 'went')
    await env.skip(300_000)
    await env.skip(3_600_000)
    assert.deepEqual(output(await engine.waitForRun(runId, { timeoutMs: 5_000 })), {
      all: [1, 'slept', 'went', 42],
      settled: ['b broke', 'late'],
    })
    assert.deepEqual(calls, { a: 1, b: 1, child: 1 }, 'each step ran once across the suspensions')
  })
})
