import assert from 'node:assert/strict'
import { FatalError, RunNotRequeueableError, type Engine, type WorkflowContext } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

/** Counts each step body's executions, by step name. */
class Executions {
  readonly counts = new Map<string, number>()
  count(name: string): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + 1)
  }
  of(name: string): number {
    return this.counts.get(name) ?? 0
  }
}

const RETRY_ONCE = { retries: 1, backoff: { type: 'fixed' as const, delay: 10, jitter: 0 } }

/** reserve → charge (broken until fixed; retried once) → ship. */
function registerCheckout(engine: Engine, runs: Executions, state: { broken: boolean }) {
  engine.register('checkout', 1, async (ctx) => {
    const stock = await ctx.localStep('reserve', () => {
      runs.count('reserve')
      return 'stock-1'
    })
    const charge = await ctx.localStep(
      'charge',
      () => {
        runs.count('charge')
        if (state.broken) throw new Error('payment provider down')
        return 'ch-9'
      },
      RETRY_ONCE,
    )
    const shipped = await ctx.localStep('ship', () => {
      runs.count('ship')
      return 'shipped'
    })
    return [stock, charge, shipped]
  })
}

async function failedCheckout(env: Env, engine: Engine, runs: Executions) {
  const { runId } = await engine.start('checkout', null)
  await env.skip(10) // the retry of charge
  const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
  assert.equal(outcome.status, 'failed', 'the run fails once charge has used its retries')
  assert.deepEqual([runs.of('reserve'), runs.of('charge'), runs.of('ship')], [1, 2, 0])
  return runId
}

async function rejectionOf(call: Promise<unknown>): Promise<{ code?: string; details?: object }> {
  const error = await call.then(
    () => assert.fail('expected a rejection'),
    (e: unknown) => e,
  )
  return error as { code?: string; details?: object }
}

/** A step that fails for good while `broken()` holds: the run fails until the test mends it. */
function failsWhile(broken: () => boolean) {
  return () => {
    if (broken()) throw new FatalError('broken')
    return 1
  }
}

eachStore('requeue', (test) => {
  test('a requeued run resumes at its failed step: completed steps replayed, not re-run', async (env) => {
    const engine = await env.engine()
    const runs = new Executions()
    const state = { broken: true }
    registerCheckout(engine, runs, state)
    const requeued: unknown[] = []
    engine.on('run:requeued', (e) => requeued.push(e))
    const runId = await failedCheckout(env, engine, runs)

    state.broken = false // the fix is deployed
    assert.deepEqual(await engine.requeue(runId), { runId, positionsReset: 1 })
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, {
      runId,
      status: 'completed',
      output: ['stock-1', 'ch-9', 'shipped'],
    })
    assert.equal(runs.of('reserve'), 1, 'reserve is replayed from its checkpoint')
    assert.equal(runs.of('charge'), 3, 'charge runs again after its two failed attempts')
    assert.equal(runs.of('ship'), 1)
    const steps = (await engine.getSteps(runId)).map((s) => [s.name, s.status, s.attempts])
    assert.deepEqual(steps, [
      ['reserve', 'completed', 1],
      ['charge', 'completed', 1], // a fresh retry budget: the old attempts are gone
      ['ship', 'completed', 1],
    ])
    const run = await engine.getRun(runId)
    assert.equal(run?.error, null)
    assert.deepEqual(requeued, [{ runId, workflow: 'checkout', version: '1', positionsReset: 1 }])
  })

  test('a requeued run that fails again can be requeued again', async (env) => {
    const engine = await env.engine()
    const runs = new Executions()
    const state = { broken: true }
    registerCheckout(engine, runs, state)
    const runId = await failedCheckout(env, engine, runs)
    await engine.requeue(runId)
    await env.skip(10)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
    assert.equal(runs.of('charge'), 4, 'two fresh attempts')
    state.broken = false
    assert.deepEqual(await engine.requeue(runId), { runId, positionsReset: 1 })
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.deepEqual([runs.of('reserve'), runs.of('charge'), runs.of('ship')], [1, 5, 1])
  })

  test('a failure the workflow caught and went past is replayed as recorded', async (env) => {
    const engine = await env.engine()
    const runs = new Executions()
    const state = { broken: true }
    engine.register('lookup', 1, async (ctx) => {
      let source: string
      try {
        source = await ctx.localStep('cache', () => {
          runs.count('cache')
          if (state.broken) throw new FatalError('cache miss')
          return 'cache'
        })
      } catch {
        source = await ctx.localStep('database', () => {
          runs.count('database')
          return 'database'
        })
      }
      const price = await ctx.localStep('price', () => {
        runs.count('price')
        if (state.broken) throw new FatalError('pricing down')
        return 42
      })
      return { source, price }
    })
    const { runId } = await engine.start('lookup', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
    state.broken = false // "cache" would now succeed too, but its failure was handled
    assert.deepEqual(await engine.requeue(runId), { runId, positionsReset: 1 })
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, {
      runId,
      status: 'completed',
      output: { source: 'database', price: 42 },
    })
    assert.deepEqual([runs.of('cache'), runs.of('database'), runs.of('price')], [1, 1, 2])
  })

  test("a failure thrown by the workflow's own code resets nothing: the replay runs the code again", async (env) => {
    const engine = await env.engine()
    const runs = new Executions()
    const state = { broken: true }
    engine.register('validate', 1, async (ctx) => {
      const order = await ctx.localStep('load', () => {
        runs.count('load')
        return { total: 5 }
      })
      if (state.broken) throw new Error(`total ${order.total} below the minimum`)
      return order.total
    })
    const { runId } = await engine.start('validate', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
    state.broken = false
    assert.deepEqual(await engine.requeue(runId), { runId, positionsReset: 0 })
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 5,
    })
    assert.equal(runs.of('load'), 1)
  })

  test('a step failure wrapped as the cause of the thrown error is reset too', async (env) => {
    const engine = await env.engine()
    const runs = new Executions()
    const state = { broken: true }
    engine.register('wrap', 1, async (ctx) => {
      try {
        return await ctx.localStep('call', () => {
          runs.count('call')
          if (state.broken) throw new FatalError('upstream 503')
          return 'ok'
        })
      } catch (error) {
        throw new Error('could not call upstream', { cause: error })
      }
    })
    const { runId } = await engine.start('wrap', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
    state.broken = false
    assert.deepEqual(await engine.requeue(runId), { runId, positionsReset: 1 })
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.equal(runs.of('call'), 2)
  })

  test('runs that are not failed are refused with E_RUN_NOT_REQUEUEABLE naming the status', async (env) => {
    const engine = await env.engine()
    let release: (value: string) => void = () => {}
    engine.register('busy', 1, async (ctx) =>
      ctx.localStep('hold', () => new Promise<string>((resolve) => (release = resolve))),
    )
    engine.register('sleeper', 1, async (ctx) => ctx.sleep('1h'))
    engine.register('done', 1, async () => 'done')
    engine.register('chain', 1, async (ctx, generation: number) =>
      generation === 0 ? ctx.continueAsNew(1) : 'end of chain',
    )
    const running = (await engine.start('busy', null)).runId
    const waiting = (await engine.start('sleeper', null)).runId
    const completed = (await engine.start('done', null)).runId
    const cancelled = (await engine.start('sleeper', null, { runId: 'to-cancel' })).runId
    const continued = (await engine.start('chain', 0)).runId
    await env.settle()
    await engine.waitForRun(completed, { timeoutMs: 5_000 })
    await engine.waitForRun(continued, { timeoutMs: 5_000 })
    await engine.cancel(cancelled)
    const expected = {
      [running]: 'running',
      [waiting]: 'waiting',
      [completed]: 'completed',
      [cancelled]: 'cancelled',
      [continued]: 'continued',
    }
    for (const [runId, status] of Object.entries(expected)) {
      const before = await engine.getRun(runId)
      assert.equal(before?.status, status)
      const error = await rejectionOf(engine.requeue(runId))
      assert.ok(RunNotRequeueableError.is(error), `requeue of a ${status} run: ${String(error)}`)
      assert.deepEqual(error.details, { runId, status, reason: 'not_failed' })
      assert.deepEqual(await engine.getRun(runId), before, `the ${status} run is unchanged`)
    }
    release('released')
    assert.equal((await engine.waitForRun(running, { timeoutMs: 5_000 })).status, 'completed')
  })

  test('an unknown run is E_RUN_NOT_FOUND; a malformed id E_INVALID_ARGUMENT', async (env) => {
    const engine = await env.engine()
    assert.equal((await rejectionOf(engine.requeue('no-such-run'))).code, 'E_RUN_NOT_FOUND')
    assert.equal((await rejectionOf(engine.requeue(''))).code, 'E_INVALID_ARGUMENT')
    assert.equal(
      (await rejectionOf(engine.requeue(42 as unknown as string))).code,
      'E_INVALID_ARGUMENT',
    )
  })

  test('a child that ended while its parent was failed reaches the requeued parent, once', async (env) => {
    const engine = await env.engine()
    let childRuns = 0
    let broken = true
    engine.register('kid', 1, async (ctx) => {
      await ctx.localStep('count', () => ++childRuns)
      return ctx.waitForSignal<string>('go')
    })
    engine.register('mom', 1, async (ctx) => {
      const kid = ctx.startChild<string>('kid', null)
      await ctx.localStep(
        'boom',
        failsWhile(() => broken),
        { retries: 0 },
      )
      return kid.result()
    })
    await engine.start('mom', null, { runId: 'mom' })
    assert.equal((await engine.waitForRun('mom', { timeoutMs: 5_000 })).status, 'failed')
    // The child ends while its parent is failed: its outcome finds no live parent to tell.
    await engine.signal({ runId: 'mom/0', name: 'go' }, 'kid-result')
    assert.equal((await engine.waitForRun('mom/0', { timeoutMs: 5_000 })).status, 'completed')
    broken = false
    await engine.requeue('mom')
    assert.deepEqual(await engine.waitForRun('mom', { timeoutMs: 5_000 }), {
      runId: 'mom',
      status: 'completed',
      output: 'kid-result',
    })
    assert.equal(childRuns, 1, 'the child ran once: its outcome was handed over, not re-made')
  })

  test('a child that ended while its suspended parent was failed reaches it after the requeue', async (env) => {
    const engine = await env.engine()
    let broken = true
    engine.register('kid', 1, async (ctx) => ctx.waitForSignal<string>('go'))
    engine.register('mom', 1, async (ctx) => {
      const kid = ctx.startChild<string>('kid', null)
      await ctx.sleep(3_600_000) // suspends: the child's position is recorded as waiting
      await ctx.localStep(
        'boom',
        failsWhile(() => broken),
        { retries: 0 },
      )
      return kid.result()
    })
    await engine.start('mom', null, { runId: 'mom' })
    await env.settle()
    await env.skip(3_600_000)
    assert.equal((await engine.waitForRun('mom', { timeoutMs: 5_000 })).status, 'failed')
    await engine.signal({ runId: 'mom/0', name: 'go' }, 'kid-result')
    assert.equal((await engine.waitForRun('mom/0', { timeoutMs: 5_000 })).status, 'completed')
    broken = false
    await engine.requeue('mom')
    assert.deepEqual(await engine.waitForRun('mom', { timeoutMs: 5_000 }), {
      runId: 'mom',
      status: 'completed',
      output: 'kid-result',
    })
  })

  test('two concurrent requeues, from two engines: one applies, the other is refused', async (env) => {
    const engine = await env.engine()
    const other = await env.engine({ drive: false })
    const runs = new Executions()
    const state = { broken: true }
    registerCheckout(engine, runs, state)
    registerCheckout(other, runs, state)
    const runId = await failedCheckout(env, engine, runs)
    state.broken = false
    const results = await Promise.allSettled([engine.requeue(runId), other.requeue(runId)])
    const applied = results.filter((r) => r.status === 'fulfilled')
    assert.equal(applied.length, 1, 'exactly one requeue applies')
    const refused = results.find((r) => r.status === 'rejected')
    assert.equal((refused?.reason as { code?: string }).code, 'E_RUN_NOT_REQUEUEABLE')
    // When the non-driving engine's requeue wins on a store without push wake-ups (MySQL,
    // SQLite in another process), the driving engine learns of the pending run at its next
    // poll, which is a minute of fake time away.
    await env.skip(60_000)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.equal(runs.of('charge'), 3, 'charge ran once more, not twice')
    assert.equal(runs.of('reserve'), 1)
  })

  test('a step still in flight when the run failed cannot write after the requeue', async (env) => {
    const engine = await env.engine()
    // Requeues without driving: on a store without push wake-ups the run then stays pending
    // (the driving engine polls only every minute of fake time) while the stale step lands.
    const operator = await env.engine({ drive: false })
    const state = { broken: true }
    let slowCalls = 0
    let releaseStale: (value: string) => void = () => {}
    const body = async (ctx: WorkflowContext) =>
      Promise.all([
        ctx.localStep('fast', () => {
          if (state.broken) throw new FatalError('fast failed')
          return 'fast'
        }),
        ctx.localStep('slow', () => {
          slowCalls += 1
          if (slowCalls > 1) return 'fresh'
          return new Promise<string>((resolve) => (releaseStale = resolve))
        }),
      ])
    engine.register('pair', 1, body)
    operator.register('pair', 1, body)
    const { runId } = await engine.start('pair', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
    state.broken = false
    assert.deepEqual(await operator.requeue(runId), { runId, positionsReset: 1 })
    releaseStale('stale') // the failed turn's step finishes now: its write must be fenced
    await env.settle()
    const slow = (await engine.getSteps(runId)).find((s) => s.name === 'slow')
    assert.notEqual(slow?.output, 'stale', 'the stale result was not recorded')
    await env.skip(60_000) // the driving engine's poll, where nothing pushed a wake-up
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: ['fast', 'fresh'] })
    assert.equal(slowCalls, 2)
  })

  test('a run past its execution timeout is refused; within it, it is requeued', async (env) => {
    const engine = await env.engine()
    const state = { broken: true }
    engine.register(
      'bounded',
      1,
      async (ctx) =>
        ctx.localStep('call', () => {
          if (state.broken) throw new FatalError('down')
          return 'ok'
        }),
      { executionTimeoutMs: 60_000 },
    )
    const { runId } = await engine.start('bounded', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
    const late = await engine.start('bounded', null, { runId: 'late' })
    assert.equal((await engine.waitForRun(late.runId, { timeoutMs: 5_000 })).status, 'failed')
    state.broken = false
    assert.deepEqual(await engine.requeue(runId), { runId, positionsReset: 1 })
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    await env.skip(60_000) // "late" is now past its deadline
    const before = await engine.getRun('late')
    const error = await rejectionOf(engine.requeue('late'))
    assert.equal(error.code, 'E_RUN_NOT_REQUEUEABLE')
    assert.deepEqual(error.details, {
      runId: 'late',
      status: 'failed',
      reason: 'execution_timeout',
      timeoutMs: 60_000,
    })
    assert.deepEqual(await engine.getRun('late'), before)
  })

  test('a saga that ran its compensations is refused: its completed steps were undone', async (env) => {
    const engine = await env.engine()
    engine.register('saga', 1, async (ctx) => {
      await ctx.localStep('reserve', () => 'r', { compensate: () => undefined })
      await ctx.localStep('ship', () => {
        throw new FatalError('carrier down')
      })
    })
    const { runId } = await engine.start('saga', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
    const before = await engine.getRun(runId)
    const error = await rejectionOf(engine.requeue(runId))
    assert.equal(error.code, 'E_RUN_NOT_REQUEUEABLE')
    assert.deepEqual(error.details, { runId, status: 'failed', reason: 'compensated' })
    assert.deepEqual(await engine.getRun(runId), before)
  })

  test("a requeued child's new outcome never reaches the parent that already received its failure", async (env) => {
    const engine = await env.engine()
    const state = { broken: true }
    engine.register('child', 1, async (ctx) =>
      ctx.localStep('work', () => {
        if (state.broken) throw new FatalError('child broke')
        return 'child ok'
      }),
    )
    engine.register('parent', 1, async (ctx) => {
      try {
        return await ctx.child<string>('child', null)
      } catch {
        return 'handled the failure'
      }
    })
    const { runId } = await engine.start('parent', null)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'handled the failure',
    })
    const childId = `${runId}/0`
    const parentSteps = await engine.getSteps(runId)
    const parentInbox = await engine.store.loadInbox(runId)
    state.broken = false
    assert.deepEqual(await engine.requeue(childId), { runId: childId, positionsReset: 1 })
    assert.deepEqual(await engine.waitForRun(childId, { timeoutMs: 5_000 }), {
      runId: childId,
      status: 'completed',
      output: 'child ok',
    })
    await env.settle()
    assert.deepEqual(await engine.getSteps(runId), parentSteps, "the parent's history")
    assert.deepEqual(await engine.store.loadInbox(runId), parentInbox, "the parent's inbox")
    assert.equal((await engine.getRun(runId))?.status, 'completed')
  })
})
