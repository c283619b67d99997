import assert from 'node:assert/strict'
import type { WorkflowContext } from '@cairn/core'
import { FakeClock } from '@cairn/core/testing'
import { eachStore } from '../helpers/harness.ts'

eachStore('parallel branches and replay order', (test) => {
  test('Promise.all over steps and sleeps gets deterministic positions and replays to the same result', async (env) => {
    const executions: string[] = []
    const step = (ctx: WorkflowContext, name: string, value: number, delayMs = 0) =>
      ctx.localStep(name, async () => {
        executions.push(name)
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs))
        return value
      })
    const body = async (ctx: WorkflowContext) => {
      const branch = async (label: string, base: number) => {
        const x = await step(ctx, `${label}1`, base, label === 'L' ? 5 : 0)
        await ctx.sleep(label === 'L' ? '1h' : '2h')
        const y = await step(ctx, `${label}2`, x + 1)
        return x + y
      }
      const [l, r, s] = await Promise.all([
        branch('L', 10),
        branch('R', 20),
        step(ctx, 'solo', 100),
      ])
      const tail = await step(ctx, 'tail', l + r + s)
      return { l, r, s, tail }
    }
    const engine = await env.engine()
    engine.register('par', 1, body)
    const { runId } = await engine.start('par', null)
    await new Promise((r) => setTimeout(r, 30))
    await env.skip(3_600_000)
    await env.skip(3_600_000)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, {
      runId,
      status: 'completed',
      output: { l: 21, r: 41, s: 100, tail: 162 },
    })
    // every step body ran exactly once although the run was replayed after each sleep
    assert.deepEqual([...executions].sort(), ['L1', 'L2', 'R1', 'R2', 'solo', 'tail'])
    const steps = await engine.getSteps(runId)
    assert.deepEqual(
      steps.map((s) => s.seq),
      steps.map((_, i) => i),
      'positions are dense',
    )
    // positions are taken at call time: L1, R1 and solo are called synchronously first
    assert.deepEqual(
      steps.slice(0, 3).map((s) => s.name),
      ['L1', 'R1', 'solo'],
    )
  })

  test('interleaved sequential branches replay in their recorded order', async (env) => {
    // Two branches of several sequential steps each, where the order of completions decides
    // which later call gets which position. Replay must reproduce it exactly.
    const order: string[] = []
    const body = (freezeAt: string | null) => async (ctx: WorkflowContext) => {
      const chain = async (label: string, n: number, pause: number) => {
        const out: number[] = []
        for (let i = 0; i < n; i++) {
          const name = `${label}${i}`
          out.push(
            await ctx.localStep(name, async () => {
              if (name === freezeAt) await new Promise<never>(() => {})
              order.push(name)
              await new Promise((r) => setTimeout(r, pause))
              return i
            }),
          )
          await Promise.resolve() // extra microtask hops between steps
          await Promise.resolve()
        }
        return out
      }
      const [a, b] = await Promise.all([chain('a', 4, 1), chain('b', 4, 3)])
      return { a, b }
    }
    const first = await env.engine({
      leaseMs: 2_000,
      holdTimersUpToMs: 500,
      clock: new FakeClock(env.clock.now()),
    })
    first.register('chains', 1, body('b3'))
    const { runId } = await first.start('chains', null)
    await new Promise((r) => setTimeout(r, 80))
    const before = await first.getSteps(runId)
    const second = await env.engine({ leaseMs: 2_000, holdTimersUpToMs: 500 })
    second.register('chains', 1, body(null))
    await env.skip(3_000)
    const outcome = await second.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, {
      runId,
      status: 'completed',
      output: { a: [0, 1, 2, 3], b: [0, 1, 2, 3] },
    })
    const after = await second.getSteps(runId)
    // the recorded prefix is unchanged and nothing recorded ran again
    assert.deepEqual(
      after.slice(0, before.length).map((s) => [s.seq, s.name]),
      before.map((s) => [s.seq, s.name]),
    )
    assert.equal(order.filter((n) => n === 'a0').length, 1)
    assert.equal(order.filter((n) => n === 'b3').length, 1)
    assert.ok(
      before.length >= 6,
      `expected most steps recorded before the freeze, got ${before.length}`,
    )
  })
})
