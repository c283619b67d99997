import assert from 'node:assert/strict'
import { EventTimeoutError, type Engine, type WorkflowContext } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'
import { HeldStore } from '../helpers/held_store.ts'

type Order = { order: { id: number }; total?: number }

/** The output of a run that must have completed once the engines are quiet. */
async function outputOf(env: Env, engine: Engine, runId: string): Promise<unknown> {
  await env.settle()
  const run = await engine.getRun(runId)
  assert.equal(run?.status, 'completed', `run ${runId} completed`)
  return run?.output
}

eachStore('broadcast events', (test) => {
  test('a waiting run receives an event published while it waits, holding no lease', async (env) => {
    const engine = await env.engine()
    engine.register('paid', 1, async (ctx) => ctx.waitForEvent<Order>('order.paid'))
    const { runId } = await engine.start('paid', null)
    await env.settle()
    const waiting = await engine.getRun(runId)
    assert.equal(waiting?.status, 'waiting')
    assert.match(waiting?.waitingOn ?? '', /event "order.paid"/)
    assert.equal(engine.activeRuns, 0)
    const published = await engine.publishEvent('order.paid', { order: { id: 7 } })
    assert.equal(published.delivered, 1)
    assert.equal(typeof published.eventId, 'string')
    assert.deepEqual(await outputOf(env, engine, runId), { order: { id: 7 } })
    const [step] = await engine.getSteps(runId)
    assert.equal(step?.kind, 'event')
    assert.deepEqual(await env.handle.store.loadEventWaits('order.paid'), [], 'wait removed')
    assert.deepEqual(await env.handle.store.loadInbox(runId), [], 'message consumed')
  })

  test('match filters: of two runs waiting with different matches, only the matching one receives', async (env) => {
    const engine = await env.engine()
    engine.register('one', 1, async (ctx, id: number) =>
      ctx.waitForEvent<Order>('order.paid', { match: { 'order.id': id } }),
    )
    const a = await engine.start('one', 1)
    const b = await engine.start('one', 2)
    await env.settle()
    assert.equal(
      (await engine.publishEvent('order.paid', { order: { id: 2 }, total: 5 })).delivered,
      1,
    )
    assert.equal((await engine.publishEvent('order.paid', { order: { id: '1' } })).delivered, 0)
    assert.equal((await engine.publishEvent('other', { order: { id: 1 } })).delivered, 0)
    assert.deepEqual(await outputOf(env, engine, b.runId), { order: { id: 2 }, total: 5 })
    assert.equal((await engine.getRun(a.runId))?.status, 'waiting', 'a string "1" is not 1')
    assert.equal((await engine.publishEvent('order.paid', { order: { id: 1 } })).delivered, 1)
    assert.deepEqual(await outputOf(env, engine, a.runId), { order: { id: 1 } })
  })

  test('an event published before the wait began is not received', async (env) => {
    const engine = await env.engine()
    engine.register('late', 1, async (ctx) => ctx.waitForEvent('ping'))
    await engine.publishEvent('ping', 'too early')
    await env.skip(1)
    const { runId } = await engine.start('late', null)
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'waiting', 'the earlier event is not for it')
    await engine.publishEvent('ping', 'in time')
    assert.equal(await outputOf(env, engine, runId), 'in time')
  })

  test('two waits of one run (Promise.all) both receive one event', async (env) => {
    const engine = await env.engine()
    engine.register('both', 1, async (ctx) =>
      Promise.all([
        ctx.waitForEvent('tick'),
        ctx.waitForEvent('tick', { match: { n: 1 } }),
        ctx.waitForEvent('tick', { match: { n: 2 }, timeoutMs: 60_000 }).catch(() => 'none'),
      ]),
    )
    const { runId } = await engine.start('both', null)
    await env.settle()
    assert.equal((await engine.publishEvent('tick', { n: 1 })).delivered, 2)
    await env.skip(60_000)
    assert.deepEqual(await outputOf(env, engine, runId), [{ n: 1 }, { n: 1 }, 'none'])
  })

  test('a timed-out wait throws EventTimeoutError (E_EVENT_TIMEOUT) and is unregistered; it replays the same', async (env) => {
    // Replay is the point: no run cache, so each wake replays the body.
    const engine = await env.engine({ maxCachedRuns: 0 })
    let bodies = 0
    engine.register('patient', 1, async (ctx) => {
      bodies++
      try {
        return await ctx.waitForEvent('reply', { timeoutMs: 60_000 })
      } catch (error) {
        if (!EventTimeoutError.is(error)) throw error
        await ctx.sleep('1m') // one more suspension: the timeout is replayed from history
        return `gave up: ${error.code}`
      }
    })
    const { runId } = await engine.start('patient', null)
    await env.settle()
    assert.equal((await env.handle.store.loadEventWaits('reply')).length, 1)
    await env.skip(59_999)
    assert.equal((await engine.getRun(runId))?.status, 'waiting', 'not a millisecond early')
    await env.skip(1)
    assert.deepEqual(await env.handle.store.loadEventWaits('reply'), [])
    assert.equal((await engine.publishEvent('reply', 'too late')).delivered, 0)
    await env.skip(60_000)
    assert.equal(await outputOf(env, engine, runId), 'gave up: E_EVENT_TIMEOUT')
    // start; the check-back a lease (30 s) after the wait was first registered, which reads
    // the log in case the first turn died before its own read; timeout; after the sleep.
    assert.equal(bodies, 4, 'start, check-back, timeout, after the sleep')
  })

  test('a publish retried with its eventId reaches each wait once; the first publication time counts', async (env) => {
    const engine = await env.engine()
    engine.register('ticks', 1, async (ctx) => {
      const first = await ctx.waitForEvent('tick')
      await ctx.sleep('1m')
      const second = await ctx.waitForEvent('tick', { timeoutMs: 60_000 }).catch(() => 'none')
      return [first, second]
    })
    const { runId } = await engine.start('ticks', null)
    await env.settle()
    const sent = await Promise.all([
      engine.publishEvent('tick', 'once', { eventId: 'e-1' }),
      engine.publishEvent('tick', 'once', { eventId: 'e-1' }),
    ])
    assert.deepEqual(sent.map((s) => s.delivered).sort(), [0, 1])
    assert.deepEqual(sent[0], {
      eventId: 'e-1',
      delivered: sent[0]?.delivered,
      started: [],
      batched: [],
    })
    await env.skip(60_000)
    assert.equal((await engine.getRun(runId))?.status, 'waiting', 'at the second wait')
    assert.equal((await engine.publishEvent('tick', 'once', { eventId: 'e-1' })).delivered, 0)
    await env.skip(60_000)
    assert.deepEqual(await outputOf(env, engine, runId), ['once', 'none'])
    assert.deepEqual(await env.handle.store.loadInbox(runId), [], 'no message left behind')
  })

  test('a received event is replayed after a restart, never received twice', async (env) => {
    const first = await env.engine({ instanceId: 'first' })
    let bodies = 0
    const body = async (ctx: WorkflowContext) => {
      bodies++
      const got = await ctx.waitForEvent('price', { match: { sku: 'a' } })
      await ctx.sleep('1h')
      return got
    }
    first.register('watch', 1, body)
    const { runId } = await first.start('watch', null)
    await env.settle()
    assert.equal((await first.publishEvent('price', { sku: 'a', cents: 100 })).delivered, 1)
    await env.settle()
    await first.close()
    const second = await env.engine({ instanceId: 'second' })
    second.register('watch', 1, body)
    await second.publishEvent('price', { sku: 'a', cents: 999 })
    await env.skip(3_600_000)
    assert.deepEqual(await outputOf(env, second, runId), { sku: 'a', cents: 100 })
    // The event's wake went on from the first engine's cached body (the run cache); the
    // restarted engine replayed the history, the received event with it.
    assert.equal(bodies, 2, 'start, then after the sleep on the restarted engine (a replay)')
  })

  test('a run that ends with an event wait open leaves no registration; a cancelled one is forgotten at the next publish', async (env) => {
    const engine = await env.engine()
    engine.register('race', 1, async (ctx) =>
      Promise.race([ctx.waitForEvent('never'), ctx.sleep('1m').then(() => 'slept')]),
    )
    engine.register('forever', 1, async (ctx) => ctx.waitForEvent('never'))
    const raced = await engine.start('race', null)
    const cancelled = await engine.start('forever', null)
    await env.settle()
    assert.equal((await env.handle.store.loadEventWaits('never')).length, 2)
    await env.skip(60_000)
    assert.equal(await outputOf(env, engine, raced.runId), 'slept')
    assert.deepEqual(
      (await env.handle.store.loadEventWaits('never')).map((w) => w.runId),
      [cancelled.runId],
    )
    await engine.cancel(cancelled.runId)
    assert.equal((await engine.publishEvent('never', 1)).delivered, 0)
    assert.deepEqual(await env.handle.store.loadEventWaits('never'), [])
  })

  test('bad names, ids, matches and payloads are structured errors, and nothing is stored', async (env) => {
    const engine = await env.engine()
    for (const name of ['', 'with space', 'cairn:event', 'x'.repeat(201), 7]) {
      await assert.rejects(
        engine.publishEvent(name as string, 1),
        { code: 'E_INVALID_ARGUMENT' },
        JSON.stringify(name),
      )
    }
    for (const eventId of ['', ' padded', 'x'.repeat(256)]) {
      await assert.rejects(engine.publishEvent('ok', 1, { eventId }), {
        code: 'E_INVALID_ARGUMENT',
      })
    }
    await assert.rejects(engine.publishEvent('ok', { fn: () => 1 }), { code: 'E_NOT_SERIALIZABLE' })
    assert.deepEqual(await env.handle.store.loadEvents('ok', 0), [], 'nothing stored')
    const bad: unknown[] = [
      [],
      'x',
      { a: {} },
      { a: [1] },
      { a: Number.NaN },
      { a: undefined },
      { 'a..b': 1 },
      { '': 1 },
      new Map(),
    ]
    engine.register('bad', 1, async (ctx, match: number) =>
      ctx.waitForEvent('ok', { match: bad[match] as Record<string, number> }),
    )
    for (let i = 0; i < bad.length; i++) {
      const { runId } = await engine.start('bad', i)
      await env.settle()
      const run = await engine.getRun(runId)
      assert.equal(run?.status, 'failed', JSON.stringify(bad[i]))
      assert.match(JSON.stringify(run?.error), /E_INVALID_ARGUMENT/)
    }
    engine.register('badName', 1, async (ctx) => ctx.waitForEvent('cairn:mine'))
    const { runId } = await engine.start('badName', null)
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'failed')
    assert.deepEqual(await env.handle.store.loadEventWaits('ok'), [], 'nothing registered')
  })

  test('race: an event published after waitForEvent but before the suspend committed is still received', async (env) => {
    const store = new HeldStore(env.handle.store)
    const engine = await env.engine({ store })
    engine.register('paid', 1, async (ctx) =>
      ctx.waitForEvent<Order>('order.paid', { match: { 'order.id': 1 } }),
    )
    const hold = store.holdNextEventSuspend()
    const { runId } = await engine.start('paid', null)
    await hold.reached // the wait began (startedAt recorded in the turn); its suspend is held
    const published = await engine.publishEvent('order.paid', { order: { id: 1 } })
    assert.equal(published.delivered, 0, 'the wait is not registered yet: the publisher misses it')
    hold.release()
    assert.deepEqual(await outputOf(env, engine, runId), { order: { id: 1 } })
  })

  test('race: the same, when the suspend applied but its acknowledgement was lost', async (env) => {
    const store = new HeldStore(env.handle.store)
    const engine = await env.engine({ store })
    engine.register('paid', 1, async (ctx) =>
      ctx.waitForEvent<Order>('order.paid', { match: { 'order.id': 2 } }),
    )
    const hold = store.holdNextEventSuspend()
    const { runId } = await engine.start('paid', null)
    await hold.reached
    await engine.publishEvent('order.paid', { order: { id: 2 } })
    store.failNext(1, 'after') // the held suspend applies, then its connection "drops"
    hold.release()
    await env.settle()
    await env.skip(60_000) // the turn was lost: the run is taken at the next poll
    assert.deepEqual(await outputOf(env, engine, runId), { order: { id: 2 } })
  })

  for (const timeoutMs of [undefined, 10_000]) {
    test(`a run whose log read after its suspend never happened still gets the event (timeout ${String(timeoutMs)})`, async (env) => {
      const store = new HeldStore(env.handle.reopen())
      const engine = await env.engine({ store, leaseMs: 30_000 })
      engine.register('paid', 1, async (ctx) =>
        ctx.waitForEvent<Order>('order.paid', { match: { 'order.id': 3 }, timeoutMs }),
      )
      const hold = store.holdNextEventSuspend()
      const { runId } = await engine.start('paid', null)
      await hold.reached // the wait began; its suspend is not registered yet
      const published = await engine.publishEvent('order.paid', { order: { id: 3 } })
      assert.equal(published.delivered, 0, 'the publisher missed the unregistered wait')
      // The suspend commits, and the read of the log after it never happens (every attempt
      // fails: as if the process had died right after its suspend).
      store.failNextEventReads(3)
      hold.release()
      await env.settle()
      assert.equal((await engine.getRun(runId))?.status, 'waiting')
      // A later turn (a lease later at the latest, or the timeout) reads the log itself.
      await env.skip(30_000)
      assert.deepEqual(await outputOf(env, engine, runId), { order: { id: 3 } })
    })
  }
})
