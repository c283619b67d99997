import assert from 'node:assert/strict'
import type { WorkflowContext } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { eachStore } from '../helpers/harness.ts'

// A step body that never finishes: the holding engine is "frozen" there, as if paused or dead.
const hang = () => new Promise<never>(() => {})

eachStore('recovery and fencing', (test) => {
  test('an expired lease is recovered by another engine, which replays without re-running completed steps', async (env) => {
    const runs: Record<string, number> = {}
    const body = (freeze: boolean) => async (ctx: WorkflowContext) => {
      const a = await ctx.localStep('a', () => ((runs.a = (runs.a ?? 0) + 1), 1))
      const b = await ctx.localStep('b', () => ((runs.b = (runs.b ?? 0) + 1), a + 1))
      const c = await ctx.localStep('c', () =>
        freeze ? hang() : ((runs.c = (runs.c ?? 0) + 1), b + 1),
      )
      return [a, b, c]
    }
    // The first engine's clock never moves: it never renews, as if it died with the step open.
    const first = await env.engine({ leaseMs: 10_000, clock: new FakeClock(env.clock.now()) })
    first.register('recover', 1, body(true))
    const { runId } = await first.start('recover', null)
    await env.settle()
    assert.equal((await first.getRun(runId))?.status, 'running')
    const second = await env.engine({ leaseMs: 10_000 })
    second.register('recover', 1, body(false))
    await env.skip(5_000) // the lease is still valid, second must not take it
    assert.equal((await second.getRun(runId))?.leaseOwner, 'engine-1')
    await env.skip(20_000)
    const outcome = await second.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: [1, 2, 3] })
    assert.deepEqual(runs, { a: 1, b: 1, c: 1 })
    const run = await second.getRun(runId)
    assert.equal(run?.leaseOwner, 'engine-2')
  })

  test("a stale holder's late result is fenced: one recorded result per step", async (env) => {
    let release!: (v: string) => void
    const late = new Promise<string>((resolve) => (release = resolve))
    // Paused holder: its clock is frozen so it never renews; it wakes up after losing the lease.
    const first = await env.engine({
      leaseMs: 3_000,
      holdTimersUpToMs: 1_000,
      clock: new FakeClock(env.clock.now()),
    })
    first.register('fence', 1, async (ctx) => ctx.localStep('only', () => late))
    const { runId } = await first.start('fence', null)
    await env.settle()
    const second = await env.engine({ leaseMs: 3_000, holdTimersUpToMs: 1_000 })
    second.register('fence', 1, async (ctx) => ctx.localStep('only', () => 'from second'))
    await env.skip(4_000)
    assert.deepEqual(await second.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'from second',
    })
    release('from first, too late')
    await env.settle()
    await env.settle()
    assert.equal(first.activeRuns, 0, 'the stale holder let go after its write was fenced')
    const steps = await second.getSteps(runId)
    assert.equal(steps.length, 1)
    assert.equal(steps[0]?.output, 'from second')
  })

  test('an engine restarted under the same instance id reclaims its runs at once', async (env) => {
    // The first process "died" with the step open: its clock is frozen, it does nothing more.
    const first = await env.engine({
      instanceId: 'node-a',
      leaseMs: 60_000,
      clock: new FakeClock(env.clock.now()),
    })
    first.register('w', 1, async (ctx) => ctx.localStep('s', hang))
    const { runId } = await first.start('w', null)
    await env.settle()
    // "Restart": a new engine with the same id and the real body, no lease expiry waited for.
    const restarted = await env.engine({ instanceId: 'node-a', leaseMs: 60_000 })
    restarted.register('w', 1, async (ctx) => ctx.localStep('s', () => 'after restart'))
    await env.settle()
    await env.skip(1)
    assert.deepEqual(await restarted.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'after restart',
    })
    const run = await restarted.getRun(runId)
    assert.equal(run?.turns, 2)
  })
})
