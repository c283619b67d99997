/**
 * The run cache changes no history: each scenario runs with the cache off (every wake replays)
 * and on (wakes resume the paused body), and must write the same positions (kind, name,
 * status, attempts) and end the same way — while the cached engine really enters the body
 * fewer times. Scenarios: retry back-offs, Promise.race of a signal and a sleep, a signal
 * timeout then a late signal, updates (one rejected), continueAsNew, an execution timeout
 * while cached, search attributes across sleeps, a failing saga, broadcast events (one
 * received, one timed out, one received after the timeout), children.
 */
import assert from 'node:assert/strict'
import type { Engine } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

const HOUR = 3_600_000

type Scenario = (env: Env, engine: Engine) => Promise<string>

const scenarios: Record<string, Scenario> = {
  async retryBackoff(env, engine) {
    let calls = 0
    engine.register('r', 1, async (ctx) => {
      const a = await ctx.localStep(
        'flaky',
        () => {
          if (++calls < 3) throw new Error('boom')
          return calls
        },
        { retries: 5, backoff: { delay: '1h', jitter: 0 } },
      )
      await ctx.sleep('30m')
      return a
    })
    const { runId } = await engine.start('r', null)
    for (let i = 0; i < 4; i++) await env.skip(HOUR)
    return runId
  },
  async raceSignalSleep(env, engine) {
    engine.register('r', 1, async (ctx) => {
      const out: unknown[] = []
      for (let i = 0; i < 3; i++) {
        const sig = ctx.waitForSignal<string>('go')
        const nap = ctx.sleep('1h').then(() => 'timeout')
        out.push(await Promise.race([sig, nap]))
        out.push(await ctx.localStep(`s${i}`, () => i))
      }
      return out
    })
    const { runId } = await engine.start('r', null)
    await env.settle()
    await engine.signal({ runId, name: 'go' }, 'a')
    await env.settle()
    await env.skip(HOUR)
    await engine.signal({ runId, name: 'go' }, 'b')
    await env.skip(HOUR)
    await env.skip(HOUR)
    await env.skip(HOUR)
    return runId
  },
  async signalTimeoutLateMessage(env, engine) {
    engine.register('r', 1, async (ctx) => {
      const a = await ctx.waitForSignal<string>('go', { timeoutMs: HOUR }).catch(() => 'to')
      const b = await ctx.waitForSignal<string>('go', { timeoutMs: HOUR }).catch(() => 'to')
      return [a, b]
    })
    const { runId } = await engine.start('r', null)
    await env.settle()
    await env.skip(HOUR)
    await engine.signal({ runId, name: 'go' }, 'late')
    await env.skip(HOUR)
    return runId
  },
  async updates(env, engine) {
    engine.register('r', 1, async (ctx) => {
      const got: unknown[] = []
      for (let i = 0; i < 2; i++)
        got.push(await ctx.onUpdate<number>('add', { validate: (n) => (n > 0 ? true : 'neg') }))
      await ctx.sleep('1h')
      return got
    })
    const { runId } = await engine.start('r', null)
    await env.settle()
    const r1 = engine.update(runId, 'add', -1, { timeoutMs: 3_000 } as never)
    await env.settle()
    await r1.catch(() => undefined)
    const r2 = engine.update(runId, 'add', 2)
    await env.settle()
    await r2.catch(() => undefined)
    const r3 = engine.update(runId, 'add', 3)
    await env.settle()
    await r3.catch(() => undefined)
    await env.skip(HOUR)
    return runId
  },
  async continueAsNew(env, engine) {
    engine.register('r', 1, async (ctx, n: number) => {
      await ctx.sleep('1h')
      const v = await ctx.localStep('s', () => n)
      if (n < 2) return ctx.continueAsNew(n + 1)
      return v
    })
    const { runId } = await engine.start('r', 0)
    for (let i = 0; i < 4; i++) await env.skip(HOUR)
    return runId
  },
  async executionTimeout(env, engine) {
    engine.register(
      'r',
      1,
      async (ctx) => {
        for (let i = 0; i < 10; i++) {
          await ctx.localStep(`s${i}`, () => i)
          await ctx.sleep('1h')
        }
      },
      { executionTimeoutMs: 2.5 * HOUR } as never,
    )
    const { runId } = await engine.start('r', null)
    for (let i = 0; i < 4; i++) await env.skip(HOUR)
    return runId
  },
  async searchAttrs(env, engine) {
    engine.register('r', 1, async (ctx) => {
      for (let i = 0; i < 3; i++) {
        await ctx.upsertSearchAttributes({ stage: `s${i}` })
        await ctx.sleep('1h')
      }
    })
    const { runId } = await engine.start('r', null)
    for (let i = 0; i < 4; i++) await env.skip(HOUR)
    return runId
  },
  async sagaFailure(env, engine) {
    engine.register('r', 1, async (ctx) => {
      await ctx.localStep('a', () => 1, { compensate: () => undefined })
      await ctx.sleep('1h')
      await ctx.localStep('b', () => 2, { compensate: () => undefined })
      await ctx.sleep('1h')
      await ctx.localStep(
        'c',
        () => {
          throw new Error('no')
        },
        { retries: 0 },
      )
    })
    const { runId } = await engine.start('r', null)
    for (let i = 0; i < 3; i++) await env.skip(HOUR)
    return runId
  },
  async events(env, engine) {
    engine.register('r', 1, async (ctx) => {
      const got: unknown[] = []
      for (let i = 0; i < 3; i++) {
        const event = ctx.waitForEvent<{ n: number }>('tick', { timeoutMs: HOUR })
        got.push(await event.catch((error: { code?: string }) => error.code))
        await ctx.sleep('30m')
      }
      return got
    })
    const { runId } = await engine.start('r', null)
    await env.settle()
    await engine.publishEvent('tick', { n: 1 })
    await env.skip(HOUR / 2)
    await env.skip(2 * HOUR) // the second wait times out
    await engine.publishEvent('tick', { n: 3 })
    await env.skip(HOUR)
    return runId
  },
  async children(env, engine) {
    engine.register('kid', 1, async (ctx, n: number) => {
      await ctx.sleep(`${n}h`)
      return n
    })
    engine.register('r', 1, async (ctx) => {
      const a = ctx.startChild<number>('kid', 2)
      const b = await ctx.child<number>('kid', 1)
      await ctx.sleep('30m')
      return [b, await a.result()]
    })
    const { runId } = await engine.start('r', null)
    for (let i = 0; i < 4; i++) await env.skip(HOUR)
    return runId
  },
}

async function history(engine: Engine, runId: string) {
  const steps = await engine.getSteps(runId)
  const outcome = await engine.waitForRun(runId, { timeoutMs: 3_000 }).catch((e) => String(e))
  const o =
    typeof outcome === 'string'
      ? outcome
      : {
          status: outcome.status,
          output: (outcome as { output?: unknown }).output ?? null,
          code: (outcome as { error?: { code?: string } }).error?.code ?? null,
        }
  return {
    steps: steps.map((s) => `${s.seq}:${s.kind}:${s.name}:${s.status}:${s.attempts}`),
    outcome: o,
  }
}

/** Counts how often the bodies of `engine`'s workflows are entered (registered after this). */
function countEntries(engine: Engine): { entries: number } {
  const count = { entries: 0 }
  const register = engine.register.bind(engine) as (...args: unknown[]) => unknown
  ;(engine as { register: unknown }).register = (...args: unknown[]) => {
    const body = args[2] as (ctx: unknown, input: unknown) => unknown
    args[2] = (ctx: unknown, input: unknown) => {
      count.entries++
      return body(ctx, input)
    }
    return register(...args)
  }
  return count
}

eachStore('run cache: the same history with and without it', (test) => {
  for (const [name, scenario] of Object.entries(scenarios)) {
    test(name, async (env) => {
      const results = []
      const entries: number[] = []
      for (const maxCachedRuns of [0, 1000]) {
        const engine = await env.engine({ maxCachedRuns })
        const count = countEntries(engine)
        const runId = await scenario(env, engine)
        results.push(await history(engine, runId))
        entries.push(count.entries)
        await engine.close(100)
      }
      assert.deepEqual(results[1], results[0])
      const [replayed, resumed] = entries as [number, number]
      assert.ok(resumed < replayed, `bodies entered: ${resumed} cached, ${replayed} replayed`)
    })
  }
})
