/**
 * Named queues through the engine (issue 15 point 2 and 5): `ctx.step(ref, input, { queue,
 * priority, fairnessKey })` runs at most `concurrency` attempts of the queue's steps at once
 * across runs and engines; waiters go by priority, then fairness key, then arrival; a retry, a
 * finish or a cancel gives the slot back; a killed holder's slot returns when its run is taken
 * over. The amount of work is counted from a ledger the handlers write, never assumed.
 */
import assert from 'node:assert/strict'
import { createMemoryTransport, FakeClock } from '@cairn/core/testing'
import { Engine } from '@cairn/core'
import { createWorker } from '@cairn/worker'
import { eachStore, type Env } from '../helpers/harness.ts'
import { Gate, until } from '../helpers/queue_gate.ts'

function registerCalls(engine: Engine, gate: Gate, concurrency: number): void {
  engine.registerQueue('carrier', { concurrency })
  engine.registerStep('call', gate.handler)
  engine.register(
    'ship',
    1,
    async (ctx, input: { name: string; priority?: number; tenant?: string }) =>
      ctx.step('call', input.name, {
        queue: 'carrier',
        ...(input.priority === undefined ? {} : { priority: input.priority }),
        ...(input.tenant === undefined ? {} : { fairnessKey: input.tenant }),
      }),
  )
}

/** Opens handlers one at a time until every run has ended. */
async function drain(env: Env, engine: Engine, gate: Gate, ids: readonly string[]) {
  for (;;) {
    const runs = await Promise.all(ids.map((id) => engine.getRun(id)))
    if (runs.every((run) => run?.status === 'completed')) return
    await until(env, () => gate.blocked > 0, 'a handler runs')
    gate.openOne()
    await env.settle()
  }
}

eachStore('named queues', (test) => {
  test('at most `concurrency` attempts run at once; waiters are visible and all finish', async (env) => {
    const gate = new Gate()
    const engine = await env.engine({ concurrency: 20 })
    registerCalls(engine, gate, 2)
    const ids: string[] = []
    for (let i = 0; i < 6; i++) ids.push((await engine.start('ship', { name: `r${i}` })).runId)
    await until(env, () => gate.blocked === 2, 'two handlers run')
    await env.settle()
    assert.equal(gate.blocked, 2, 'no third attempt starts')
    const [stats] = await engine.store.queueStats(['carrier'], Date.now())
    assert.deepEqual(
      { granted: stats?.granted, waiting: stats?.waiting, concurrency: stats?.concurrency },
      { granted: 2, waiting: 4, concurrency: 2 },
    )
    // Waiters are held in memory a while (a grant made here is handed over at once), then
    // suspend: waiting on the queue, holding no lease.
    await env.skip(10_000)
    const waiting = (await Promise.all(ids.map((id) => engine.getRun(id)))).filter(
      (run) => run?.status === 'waiting',
    )
    assert.equal(waiting.length, 4, 'four runs wait for a slot')
    assert.match(waiting[0]?.waitingOn ?? '', /queue "carrier"/)
    await drain(env, engine, gate, ids)
    assert.equal(gate.maxRunning, 2, 'never more than two at once')
    assert.equal(gate.started.length, 6, 'each handler ran once')
    for (const id of ids) assert.equal((await engine.getRun(id))?.status, 'completed')
    const [after] = await engine.store.queueStats(['carrier'], Date.now())
    assert.deepEqual([after?.granted, after?.waiting], [0, 0], 'every slot returned')
  })

  test('waiters go by priority, then fairness key, then arrival', async (env) => {
    const gate = new Gate()
    const engine = await env.engine({ concurrency: 20 })
    registerCalls(engine, gate, 1)
    const start = async (name: string, extra: { priority?: number; tenant?: string }) => {
      const { runId } = await engine.start('ship', { name, ...extra })
      await env.settle()
      return runId
    }
    const ids = [await start('holder', {})]
    await until(env, () => gate.blocked === 1, 'the holder runs')
    for (const name of ['a1', 'a2', 'a3']) ids.push(await start(name, { tenant: 'a' }))
    ids.push(await start('b1', { tenant: 'b' }))
    ids.push(await start('low', { priority: -5 }))
    ids.push(await start('vip', { priority: 10 }))
    await drain(env, engine, gate, ids)
    // vip first (priority 10); then priority 0: tenant '' (holder's key, granted once) and
    // tenants a and b never granted: a1 (arrived first), b1, then a's rest; low last.
    assert.deepEqual(gate.started, ['holder', 'vip', 'a1', 'b1', 'a2', 'a3', 'low'])
  })

  test("a queue's fairness derives the key from the step's input; a call's own key wins", async (env) => {
    const gate = new Gate()
    const engine = await env.engine({ concurrency: 20 })
    engine.registerQueue('carrier', { concurrency: 1, fairness: 'tenant' })
    engine.registerStep('call', (input: { name: string }) => gate.handler(input.name))
    engine.register(
      'ship',
      1,
      async (ctx, input: { name: string; tenant: string | number; own?: string }) =>
        ctx.step('call', input, {
          queue: 'carrier',
          ...(input.own === undefined ? {} : { fairnessKey: input.own }),
        }),
    )
    const start = async (name: string, tenant: string | number, own?: string) => {
      const { runId } = await engine.start('ship', { name, tenant, ...(own ? { own } : {}) })
      await env.settle()
      return runId
    }
    const ids = [await start('holder', 'h')]
    await until(env, () => gate.blocked === 1, 'the holder runs')
    for (const name of ['a1', 'a2', 'a3']) ids.push(await start(name, 'a'))
    // A numeric tenant id is its decimal text; the call's own key goes before the input's.
    ids.push(await start('n1', 7))
    ids.push(await start('b1', 'a', 'b'))
    await drain(env, engine, gate, ids)
    // Without the queue's fairness every call would share key '' and go in arrival order.
    assert.deepEqual(gate.started, ['holder', 'a1', 'n1', 'b1', 'a2', 'a3'])
    const keys = await engine.store.queueStats(['carrier'], Date.now())
    assert.deepEqual([keys[0]?.granted, keys[0]?.waiting], [0, 0])
  })

  test("a queue's fairness that cannot derive a key fails the call, never falls back to ''", async (env) => {
    const engine = await env.engine()
    const ran: unknown[] = []
    engine.registerQueue('by-field', { concurrency: 1, fairness: 'tenant' })
    engine.registerQueue('by-function', {
      concurrency: 1,
      fairness: (input) => (input as { derive(): unknown }).derive(),
    })
    engine.registerStep('call', (input: unknown) => (ran.push(input), 'ran'))
    const inputs: Array<[string, unknown]> = [
      ['by-field', { other: 1 }], // no tenant
      ['by-field', Object.create({ tenant: 'x' })], // inherited, not an own field
      ['by-field', { tenant: '' }], // the common key: it would undo fairness
      ['by-field', { tenant: { id: 1 } }], // an object
      ['by-field', { tenant: Number.NaN }], // not finite
      ['by-field', { tenant: 'x'.repeat(201) }], // too long
      ['by-field', 'a string input'],
      ['by-field', null],
    ]
    engine.register('misuse', 1, async (ctx) => {
      const seen: string[] = []
      for (const [queue, input] of inputs) {
        try {
          seen.push(await ctx.step('call', input, { queue }))
        } catch (error) {
          seen.push((error as { code?: string }).code ?? String(error))
        }
      }
      return seen
    })
    const misuse = await engine.start('misuse', null)
    const outcome = await engine.waitForRun(misuse.runId)
    assert.deepEqual(
      outcome.status === 'completed' ? outcome.output : outcome,
      inputs.map(() => 'E_INVALID_ARGUMENT'),
    )
    assert.deepEqual(ran, [], 'no handler ran')
    // A function that throws, or returns no string: the same, with the queue named.
    engine.register('fn', 1, async (ctx, which: string) => {
      const input = { derive: () => (which === 'throws' ? JSON.parse('{') : [1]) }
      // A rejected promise, not a synchronous throw: .catch sees it.
      return ctx
        .step('call', input, { queue: 'by-function' })
        .catch((error: Error & { code?: string }) => `${error.code}: ${error.message}`)
    })
    for (const which of ['throws', 'array']) {
      const run = await engine.start('fn', which)
      const done = await engine.waitForRun(run.runId)
      const said = String(done.status === 'completed' && done.output)
      assert.match(
        said,
        /^E_INVALID_ARGUMENT: step "call": queue "by-function".* its fairness function( threw:|, which gave an array:)/,
      )
    }
    for (const fairness of ['', 5, {}, 'x'.repeat(201)])
      assert.throws(
        () =>
          engine.registerQueue(`q${String(fairness).length}`, {
            concurrency: 1,
            fairness,
          } as never),
        { code: 'E_INVALID_ARGUMENT', message: /fairness/ },
      )
  })

  test("a queue's fairness added by a later deploy leaves the steps runs already recorded alone", async (env) => {
    const ran: unknown[] = []
    const register = (engine: Engine, fairness?: string) => {
      engine.registerQueue('carrier', { concurrency: 1, ...(fairness ? { fairness } : {}) })
      engine.registerStep('call', (input: unknown) => (ran.push(input), 'called'))
      engine.register('ship', 1, async (ctx) => {
        const called = await ctx.step('call', { other: 1 }, { queue: 'carrier' })
        await ctx.sleep('1m')
        return called
      })
    }
    const before = await env.engine({ instanceId: 'before' })
    register(before)
    const { runId } = await before.start('ship', null)
    await env.settle()
    assert.equal((await before.getRun(runId))?.status, 'waiting')
    await before.close()
    // The deploy: the queue now takes its key from `tenant`, which the recorded input lacks.
    const after = await env.engine({ instanceId: 'after' })
    register(after, 'tenant')
    await env.skip(60_000)
    assert.deepEqual(await after.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'called',
    })
    assert.deepEqual(ran, [{ other: 1 }], 'the recorded step replayed, not placed again')
  })

  test('a failed attempt gives its slot back while it backs off', async (env) => {
    const engine = await env.engine({ concurrency: 20 })
    engine.registerQueue('carrier', { concurrency: 1 })
    const ledger: string[] = []
    let failures = 1
    engine.registerStep('flaky', (name: string) => {
      ledger.push(name)
      if (name === 'a' && failures-- > 0) throw new Error('carrier busy')
      return name
    })
    engine.register('ship', 1, async (ctx, name: string) =>
      ctx.step('flaky', name, { queue: 'carrier', retries: 2, backoff: { delay: 10_000 } }),
    )
    const a = await engine.start('ship', 'a')
    await env.settle()
    const b = await engine.start('ship', 'b')
    await env.settle()
    assert.deepEqual(ledger, ['a', 'b'], 'b ran while a backed off')
    await env.skip(15_000)
    assert.equal((await engine.waitForRun(a.runId)).status, 'completed')
    assert.equal((await engine.waitForRun(b.runId)).status, 'completed')
    assert.deepEqual(ledger, ['a', 'b', 'a'])
  })

  test('a cancelled holder releases its slot to the next waiter', async (env) => {
    const gate = new Gate()
    const engine = await env.engine({ concurrency: 20 })
    registerCalls(engine, gate, 1)
    const holder = await engine.start('ship', { name: 'holder' })
    await until(env, () => gate.blocked === 1, 'the holder runs')
    const next = await engine.start('ship', { name: 'next' })
    await env.settle()
    assert.deepEqual(gate.started, ['holder'])
    await engine.cancel(holder.runId, { reason: 'operator' })
    await until(env, () => gate.started.length === 2, 'the waiter starts')
    assert.deepEqual(gate.started, ['holder', 'next'])
    gate.openOne()
    gate.openOne()
    assert.equal((await engine.waitForRun(next.runId)).status, 'completed')
  })

  test("a killed holder's slot returns when another engine takes its run over", async (env) => {
    const ledger: string[] = []
    const hang = () => new Promise<never>(() => {})
    const register = (engine: Engine, frozen: boolean) => {
      engine.registerQueue('carrier', { concurrency: 1 })
      engine.registerStep('call', (name: string) => {
        ledger.push(`${engine.instanceId}:${name}`)
        return frozen ? hang() : name
      })
      engine.register('ship', 1, async (ctx, name: string) =>
        ctx.step('call', name, { queue: 'carrier' }),
      )
    }
    // The first engine's clock never moves: it never renews, as if it died mid-attempt.
    const first = await env.engine({ leaseMs: 10_000, clock: new FakeClock(env.clock.now()) })
    register(first, true)
    const a = await first.start('ship', 'a')
    await env.settle()
    const second = await env.engine({ leaseMs: 10_000 })
    register(second, false)
    const b = await second.start('ship', 'b')
    await env.settle()
    assert.deepEqual(ledger, ['engine-1:a'], 'b waits: the frozen holder keeps the slot')
    await env.skip(20_000)
    assert.equal((await second.waitForRun(a.runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.equal((await second.waitForRun(b.runId, { timeoutMs: 5_000 })).status, 'completed')
    // a's attempt ran again on the takeover (at least once), then b: never two at once.
    assert.deepEqual(ledger, ['engine-1:a', 'engine-2:a', 'engine-2:b'])
  })

  test('a remote step on a queue is dispatched only with a slot: the fleet runs at most `concurrency`', async (env) => {
    const transport = createMemoryTransport()
    const engine = await env.engine({ concurrency: 20, transports: { memory: transport.engine() } })
    const gate = new Gate()
    // One worker that could run ten at once: the queue, not the worker, is the bound.
    const worker = createWorker({
      transport: transport.worker(),
      steps: { call: (name: string) => gate.handler(name) },
      concurrency: 10,
      holdMs: 5_000,
    })
    await worker.start()
    try {
      engine.registerQueue('carrier', { concurrency: 2 })
      engine.registerStep('call', () => assert.fail('ran in the engine'), { transport: 'memory' })
      engine.register('ship', 1, async (ctx, name: string) =>
        ctx.step('call', name, { queue: 'carrier' }),
      )
      const ids: string[] = []
      for (let i = 0; i < 5; i++) ids.push((await engine.start('ship', `r${i}`)).runId)
      await until(env, () => gate.blocked === 2, 'two tasks run on the worker')
      await env.settle()
      assert.equal(gate.blocked, 2, 'no third task was dispatched')
      const [stats] = await engine.store.queueStats(['carrier'], Date.now())
      assert.deepEqual([stats?.granted, stats?.waiting], [2, 3])
      await drain(env, engine, gate, ids)
      assert.equal(gate.maxRunning, 2)
      assert.equal(gate.started.length, 5, 'each task ran once')
    } finally {
      await worker.close(100)
    }
  })

  test('bad queue options fail the call; an unknown queue parks the run until registered', async (env) => {
    const engine = await env.engine()
    engine.registerStep('call', (name: string) => name)
    engine.register('misuse', 1, async (ctx) => {
      const seen: string[] = []
      const bad = [
        { priority: 5 },
        { fairnessKey: 'tenant' },
        { queue: '' },
        { queue: 'carrier', priority: 1.5 },
        { queue: 'carrier', priority: Number.NaN },
        { queue: 'carrier', fairnessKey: 'x'.repeat(201) },
      ]
      for (const options of bad) {
        try {
          await ctx.step('call', 'x', options)
          seen.push('ran')
        } catch (error) {
          seen.push((error as { code?: string }).code ?? String(error))
        }
      }
      return seen
    })
    const misuse = await engine.start('misuse', null)
    const outcome = await engine.waitForRun(misuse.runId)
    assert.deepEqual(outcome.status === 'completed' ? outcome.output : outcome, [
      'E_INVALID_ARGUMENT',
      'E_INVALID_ARGUMENT',
      'E_INVALID_ARGUMENT',
      'E_INVALID_ARGUMENT',
      'E_INVALID_ARGUMENT',
      'E_INVALID_ARGUMENT',
    ])
    assert.throws(() => engine.registerQueue('q', { concurrency: 0 }), /concurrency/)
    assert.throws(() => engine.registerQueue('q', { concurrency: Number.NaN }), /concurrency/)
    // EngineOptions.queues: a plain object only (a Map or a literal `__proto__` would register
    // nothing, silently); an own "__proto__" key (from JSON) is a queue name like another.
    const store = env.handle.store
    const withQueues = (queues: unknown) => () => new Engine({ store, queues: queues as never })
    assert.throws(withQueues(new Map([['carrier', { concurrency: 1 }]])), /plain object/)
    assert.throws(withQueues({ __proto__: { carrier: { concurrency: 1 } } }), /plain object/)
    assert.throws(withQueues([{ concurrency: 1 }]), /plain object/)
    const parsed = JSON.parse('{"__proto__": {"concurrency": 2}}') as object
    assert.equal(new Engine({ store, queues: parsed as never }).options.queues, parsed)
    assert.throws(
      () => engine.registerQueue('q', { concurrency: 1, rateLimit: {} } as never),
      /rateLimit/,
    )

    engine.register('ship', 1, async (ctx, name: string) =>
      ctx.step('call', name, { queue: 'later' }),
    )
    const run = await engine.start('ship', 'z')
    await env.settle()
    const parked = await engine.getRun(run.runId)
    assert.equal(parked?.status, 'parked')
    assert.equal(parked?.parkReason?.code, 'E_QUEUE_NOT_REGISTERED')
    engine.registerQueue('later', { concurrency: 1 })
    assert.equal((await engine.waitForRun(run.runId, { timeoutMs: 5_000 })).status, 'completed')
  })
  test('a rate: at most `limit` attempts start per period, fleet-wide, by timers', async (env) => {
    const starts: number[] = []
    const engines = [await env.engine({ concurrency: 20 }), await env.engine({ concurrency: 20 })]
    for (const engine of engines) {
      engine.registerQueue('carrier', { concurrency: 10, rateLimit: { limit: 2, periodMs: 1000 } })
      engine.registerStep('call', async (name: string) => {
        starts.push(env.clock.now())
        return `called ${name}`
      })
      engine.register('ship', 1, async (ctx, name: string) =>
        ctx.step('call', name, { queue: 'carrier' }),
      )
    }
    // The engines' first park sweeps run now, not later inside a period: the grants below come
    // from the timers the engines' own writes set (the next sweep is 30 s away).
    await env.skip(1)
    const t0 = env.clock.now()
    const ids: string[] = []
    for (let i = 0; i < 7; i++)
      ids.push((await (engines[i % 2] as Engine).start('ship', `r${i}`)).runId)
    await until(env, () => starts.length === 2, 'two calls start')
    await env.settle()
    assert.equal(starts.length, 2, 'the rate holds the rest though slots are free')
    const [held] = await engines[0]!.queueStats()
    assert.deepEqual(
      { waiting: held?.waiting, recent: held?.recentGrants, throttled: held?.throttled },
      { waiting: 5, recent: 2, throttled: 5 },
      'five waiters beside free slots, held back by the rate',
    )
    for (let period = 1; period <= 3; period++) {
      await env.skip(1000)
      await until(env, () => starts.length >= Math.min(7, 2 * (period + 1)), `period ${period}`)
      await env.settle()
      assert.equal(starts.length, Math.min(7, 2 * (period + 1)), `two more in period ${period}`)
    }
    for (const id of ids)
      assert.equal((await engines[0]!.waitForRun(id, { timeoutMs: 5_000 })).status, 'completed')
    for (const start of starts) {
      const inWindow = starts.filter((t) => t >= start && t < start + 1000).length
      assert.ok(inWindow <= 2, `at most 2 starts in [${start - t0}, +1000): ${inWindow}`)
    }
    assert.equal(starts.length, 7, 'each call ran once')
  })

  test('a rate-limited queue whose timer died is granted by the sweep', async (env) => {
    const starts: number[] = []
    const a = await env.engine({ concurrency: 20 })
    const define = (engine: Engine) => {
      engine.registerQueue('carrier', { concurrency: 5, rateLimit: { limit: 1, periodMs: 1000 } })
      engine.registerStep('call', async (name: string) => {
        starts.push(env.clock.now())
        return name
      })
      engine.register('ship', 1, async (ctx, name: string) =>
        ctx.step('call', name, { queue: 'carrier' }),
      )
    }
    define(a)
    const first = await a.start('ship', 'first')
    const second = await a.start('ship', 'second')
    await until(env, () => starts.length === 1, 'one call starts')
    const done = async () => (await a.getRun(first.runId))?.status === 'completed'
    await until(env, done, 'the first run completes on a')
    // The engine that knew when to grant again goes away before then, leaving nothing for b
    // to run that would tell it (the second run waits on the queue, suspended).
    await a.close(0)
    const b = await env.engine({ concurrency: 20 })
    define(b)
    // b's first park sweep finds the throttled queue and sets the timer a's close cancelled.
    await env.skip(1)
    assert.equal(starts.length, 1, 'the rate still holds the second call')
    await env.skip(999)
    for (const id of [first.runId, second.runId])
      assert.equal((await b.waitForRun(id, { timeoutMs: 10_000 })).status, 'completed')
    assert.equal(starts.length, 2, 'the second call ran once, after its period')
    assert.ok((starts[1] as number) - (starts[0] as number) >= 1000, 'not before the rate allows')
  })
})
