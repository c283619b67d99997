import assert from 'node:assert/strict'
import { eachStore } from '../helpers/harness.ts'
import { FlakyStore } from '../helpers/flaky_store.ts'
import type { WorkflowContext } from '@cairn/core'

eachStore('store failures', (test) => {
  test('a start during a store outage fails with E_STORE_FAILURE; retrying it makes one run', async (env) => {
    const store = new FlakyStore(env.handle.store)
    const engine = await env.engine({ store })
    engine.register('w', 1, async (ctx) => ctx.localStep('s', () => 'done'))
    store.failNext(1, 'before')
    await assert.rejects(engine.start('w', 1, { runId: 'r1' }), { code: 'E_STORE_FAILURE' })
    store.failNext(1, 'after') // applied, but the caller never heard (P2/P10)
    await assert.rejects(engine.start('w', 1, { runId: 'r1' }), { code: 'E_STORE_FAILURE' })
    const again = await engine.start('w', 1, { runId: 'r1' })
    assert.equal(again.existing, true)
    // The lost create had leased the run to this engine: the retry has it claimed at once
    // (handed back under its epoch, then claimed like any run) rather than at lease expiry.
    await env.settle()
    assert.deepEqual(await engine.waitForRun('r1', { timeoutMs: 5_000 }), {
      runId: 'r1',
      status: 'completed',
      output: 'done',
    })
    assert.equal((await engine.listRuns()).runs.length, 1)
    const run = await engine.store.getRun('r1')
    assert.equal(run?.turns, 2, 'run through a second claim, not on the lease the lost create took')
    assert.equal(run?.leaseEpoch, 2)
  })

  test("a run's writes survive transient failures and ambiguous commits; each step runs once", async (env) => {
    const store = new FlakyStore(env.handle.store)
    const engine = await env.engine({ store })
    const ran: string[] = []
    engine.register('w', 1, async (ctx) => {
      const a = await ctx.localStep('a', () => (ran.push('a'), 1))
      store.failNext(2, 'before')
      const b = await ctx.localStep('b', () => (ran.push('b'), a + 1))
      store.failNext(1, 'after')
      const c = await ctx.localStep('c', () => (ran.push('c'), b + 1))
      return [a, b, c]
    })
    const { runId } = await engine.start('w', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.deepEqual(outcome, { runId, status: 'completed', output: [1, 2, 3] })
    assert.deepEqual(ran, ['a', 'b', 'c'])
    assert.equal(store.pendingFailures, 0, 'the injected failures were all hit')
    const steps = await engine.getSteps(runId)
    assert.deepEqual(
      steps.map((s) => [s.name, s.output]),
      [
        ['a', 1],
        ['b', 2],
        ['c', 3],
      ],
    )
  })

  test('closing while the store is down returns after the drain and one flush; nothing committed is lost', async (env) => {
    const store = new FlakyStore(env.handle.reopen())
    const engine = await env.engine({ instanceId: 'node-a', leaseMs: 60_000, store })
    const ran: string[] = []
    const gate = Promise.withResolvers<void>()
    const body = async (ctx: WorkflowContext) => {
      const a = await ctx.localStep('a', () => (ran.push('a'), 1))
      const b = await ctx.localStep('b', async () => (await gate.promise, ran.push('b'), a + 1))
      return [a, b]
    }
    engine.register('w', 1, body)
    const { runId } = await engine.start('w', null)
    await env.settle()
    assert.deepEqual(ran, ['a'])
    // The store goes down for good: b's result and the drain's hand-back are retried, never
    // taken. Before the bound, close waited on them forever.
    store.failNext(1_000_000, 'before')
    gate.resolve()
    while (ran.length < 2) await new Promise((resolve) => setImmediate(resolve))
    // Not finished, and nothing handed back: the store took nothing.
    assert.deepEqual(await engine.close(50), { finished: false, released: 0 })

    // The store is back (another process's connection): after the lease, the run goes on
    // from its last committed step; b, never recorded, runs again.
    const next = await env.engine({ instanceId: 'node-b' })
    next.register('w', 1, body)
    await env.skip(60_001)
    assert.deepEqual(await next.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: [1, 2],
    })
    assert.deepEqual(ran, ['a', 'b', 'b'])
  })
})
