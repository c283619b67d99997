/**
 * Singleton admission through the engine (issue 15): `register(…, { singleton })` bounds the
 * runs of a key; a start over the limit queues (started when a slot frees, in start order) or
 * is refused with E_SINGLETON_FULL creating nothing; every way a run ends frees its slot; a
 * resubmitted start takes no second slot; continueAsNew keeps the slot; a child over its
 * key's limit fails the parent's call. On every store.
 */
import assert from 'node:assert/strict'
import { SingletonFullError, type Engine } from '@cairn/core'
import { createMetrics } from '@cairn/dashboard/metrics'
import { eachStore } from '../helpers/harness.ts'

interface Order {
  cart: string
  n: number
}

/** A checkout that waits for a `go` signal, so tests decide when each run ends. */
function registerCheckout(
  engine: Engine,
  singleton: { limit?: number; onFull?: 'reject' | 'queue'; maxQueueDepth?: number } = {},
): void {
  engine.register(
    'checkout',
    1,
    async (ctx, order: Order) => {
      await ctx.waitForSignal('go')
      return `paid ${order.n}`
    },
    { singleton: { key: (order: Order) => order.cart, ...singleton } },
  )
}

async function statuses(engine: Engine, ids: readonly string[]): Promise<string[]> {
  return Promise.all(ids.map(async (id) => (await engine.getRun(id))?.status ?? 'missing'))
}

eachStore('singleton admission', (test) => {
  test('one run per cart: the next queues and starts when the first completes', async (env) => {
    const engine = await env.engine()
    registerCheckout(engine)
    const first = await engine.start('checkout', { cart: 'c1', n: 1 })
    const second = await engine.start('checkout', { cart: 'c1', n: 2 })
    const other = await engine.start('checkout', { cart: 'c2', n: 3 })
    assert.equal(first.queued, undefined)
    assert.equal(second.queued, true, 'the second start on c1 is queued')
    assert.equal(other.queued, undefined, 'another cart has a slot of its own')
    await env.settle()
    assert.deepEqual(await statuses(engine, [first.runId, second.runId, other.runId]), [
      'waiting',
      'queued',
      'waiting',
    ])
    const queued = await engine.getRun(second.runId)
    assert.match(queued?.waitingOn ?? '', /c1/)
    assert.deepEqual(
      (await engine.listRuns({ status: 'queued' })).runs.map((r) => r.id),
      [second.runId],
    )
    assert.equal((await engine.facetRuns()).byStatus.queued, 1)
    assert.equal((await engine.backlog()).queued, 1)
    const metrics = createMetrics(engine, { backlogCacheMs: 0 })
    assert.match(await metrics.render(), /^cairn_runs_queued 1$/m)
    metrics.close()
    await engine.signal({ runId: first.runId, name: 'go' }, null)
    assert.equal((await engine.waitForRun(first.runId)).status, 'completed')
    await env.settle()
    assert.deepEqual(await statuses(engine, [second.runId]), ['waiting'], 'promoted and started')
    await engine.signal({ runId: second.runId, name: 'go' }, null)
    assert.deepEqual(await engine.waitForRun(second.runId), {
      runId: second.runId,
      status: 'completed',
      output: 'paid 2',
    })
  })

  test('onFull reject: E_SINGLETON_FULL with the key and counts, nothing created', async (env) => {
    const engine = await env.engine()
    registerCheckout(engine, { limit: 2, onFull: 'reject' })
    await engine.start('checkout', { cart: 'c1', n: 1 })
    await engine.start('checkout', { cart: 'c1', n: 2 })
    const refused = await engine.start('checkout', { cart: 'c1', n: 3 }, { runId: 'third' }).then(
      () => null,
      (error: unknown) => error,
    )
    assert.ok(refused instanceof SingletonFullError, `got ${String(refused)}`)
    assert.equal(refused.code, 'E_SINGLETON_FULL')
    assert.deepEqual(refused.details, {
      workflow: 'checkout',
      key: 'c1',
      limit: 2,
      admitted: 2,
      queued: 0,
    })
    assert.equal(await engine.getRun('third'), null, 'a refused start creates no run')
  })

  test('maxQueueDepth: a start beyond the queue is refused', async (env) => {
    const engine = await env.engine()
    registerCheckout(engine, { maxQueueDepth: 1 })
    await engine.start('checkout', { cart: 'c1', n: 1 })
    assert.equal((await engine.start('checkout', { cart: 'c1', n: 2 })).queued, true)
    await assert.rejects(engine.start('checkout', { cart: 'c1', n: 3 }), {
      code: 'E_SINGLETON_FULL',
      details: { workflow: 'checkout', key: 'c1', limit: 1, admitted: 1, queued: 1 },
    })
  })

  test('a resubmitted start returns the same run and takes no second slot', async (env) => {
    const engine = await env.engine()
    registerCheckout(engine, { limit: 2, onFull: 'reject' })
    const input = { cart: 'c1', n: 1 }
    await engine.start('checkout', input, { runId: 'once' })
    for (let i = 0; i < 3; i++) {
      const again = await engine.start('checkout', input, { runId: 'once' })
      assert.equal(again.existing, true)
    }
    const second = await engine.start('checkout', { cart: 'c1', n: 2 })
    assert.equal(second.existing, false, 'the second slot is still free')
  })

  test('a failed, a cancelled and a timed-out holder each free the slot', async (env) => {
    const engine = await env.engine()
    engine.register(
      'job',
      1,
      async (ctx, input: { key: string; how: string }) => {
        if (input.how === 'fail') {
          await ctx.waitForSignal('go')
          throw new Error('no')
        }
        if (input.how === 'sleep') await ctx.sleep('1h')
        return 'ok'
      },
      { singleton: { key: (input: { key: string }) => input.key }, executionTimeoutMs: 60_000 },
    )
    const failing = await engine.start('job', { key: 'k', how: 'fail' })
    const waiter = await engine.start('job', { key: 'k', how: 'sleep' })
    assert.equal(waiter.queued, true)
    await engine.signal({ runId: failing.runId, name: 'go' }, null)
    assert.equal((await engine.waitForRun(failing.runId)).status, 'failed')
    await env.settle()
    assert.deepEqual(
      await statuses(engine, [waiter.runId]),
      ['waiting'],
      'promoted after a failure',
    )
    const third = await engine.start('job', { key: 'k', how: 'sleep' })
    assert.equal(third.queued, true)
    await engine.cancel(waiter.runId)
    await env.settle()
    assert.deepEqual(await statuses(engine, [third.runId]), ['waiting'], 'promoted after a cancel')
    // The execution timeout counts from creation, queue time included: the next one is
    // started late enough to outlive the holder.
    await env.skip(50_000)
    const fourth = await engine.start('job', { key: 'k', how: 'done' })
    assert.equal(fourth.queued, true)
    await env.skip(11_000) // the sleeping holder outlives its execution timeout
    assert.equal((await engine.waitForRun(third.runId)).status, 'cancelled')
    const last = await engine.waitForRun(fourth.runId)
    assert.equal(last.status, 'completed', 'promoted after a timeout')
  })

  test('singletonKeys counts each key; listRuns({ admissionKey }) lists its open runs', async (env) => {
    const engine = await env.engine()
    registerCheckout(engine, { limit: 2 })
    engine.register('sync', 1, async (ctx) => ctx.waitForSignal('go'), {
      singleton: { key: (input: { customer: string }) => input.customer },
    })
    const started = env.clock.now()
    const c1 = [1, 2, 3, 4].map((n) => ({ cart: 'c1', n }))
    const runs = []
    for (const order of c1) {
      runs.push(await engine.start('checkout', order))
      await env.clock.advance(1000)
    }
    const c2 = await engine.start('checkout', { cart: 'c2', n: 5 })
    const s = await engine.start('sync', { customer: 'c1' })
    await env.settle()
    const keys = (await engine.singletonKeys()).keys
    assert.deepEqual(keys, [
      {
        scope: 'checkout',
        key: 'c1',
        limit: 2,
        admitted: 2,
        queued: 2,
        oldestQueuedSince: started + 2000,
      },
      { scope: 'checkout', key: 'c2', limit: 2, admitted: 1, queued: 0, oldestQueuedSince: null },
      { scope: 'sync', key: 'c1', limit: 1, admitted: 1, queued: 0, oldestQueuedSince: null },
    ])
    const sync = await engine.singletonKeys({ workflow: 'sync' })
    assert.deepEqual(
      sync.keys.map((k) => `${k.scope}/${k.key}`),
      ['sync/c1'],
    )
    const first = await engine.singletonKeys({ limit: 2 })
    assert.equal(first.keys.length, 2)
    const rest = await engine.singletonKeys({ limit: 2, cursor: first.nextCursor ?? undefined })
    assert.deepEqual(
      rest,
      { keys: [keys[2]], nextCursor: null },
      'the second page holds the last key',
    )
    const listed = await engine.listRuns({ admissionKey: { scope: 'checkout', key: 'c1' } })
    assert.deepEqual(
      listed.runs.map((r) => [r.id, r.status, r.singletonKey]),
      [...runs].reverse().map((r, i) => [r.runId, i < 2 ? 'queued' : 'waiting', 'c1']),
    )
    // Ending the holders promotes the waiters; ending everyone empties the list.
    for (const run of [...runs, c2, s]) {
      await engine.signal({ runId: run.runId, name: 'go' }, null)
      await env.settle()
    }
    for (const run of [...runs, c2, s]) await engine.waitForRun(run.runId)
    assert.deepEqual(await engine.singletonKeys(), { keys: [], nextCursor: null })
    await assert.rejects(engine.singletonKeys({ scope: 'checkout' } as never), {
      code: 'E_INVALID_ARGUMENT',
    })
    await assert.rejects(engine.singletonKeys({ limit: 0 }), { code: 'E_INVALID_ARGUMENT' })
    await assert.rejects(engine.singletonKeys({ cursor: 'nope' }), { code: 'E_INVALID_CURSOR' })
  })

  test('cancelling a queued run leaves the queue; the holder keeps its slot', async (env) => {
    const engine = await env.engine()
    registerCheckout(engine)
    const holder = await engine.start('checkout', { cart: 'c1', n: 1 })
    const a = await engine.start('checkout', { cart: 'c1', n: 2 })
    const b = await engine.start('checkout', { cart: 'c1', n: 3 })
    await engine.cancel(a.runId)
    await env.settle()
    assert.deepEqual(await statuses(engine, [holder.runId, a.runId, b.runId]), [
      'waiting',
      'cancelled',
      'queued',
    ])
    await engine.signal({ runId: holder.runId, name: 'go' }, null)
    await engine.waitForRun(holder.runId)
    await env.settle()
    assert.deepEqual(await statuses(engine, [b.runId]), ['waiting'])
  })

  test('continueAsNew keeps the slot: the waiter starts only when the last successor ends', async (env) => {
    const engine = await env.engine()
    engine.register(
      'loop',
      1,
      async (ctx, input: { key: string; round: number }) => {
        if (input.round < 3) return ctx.continueAsNew({ ...input, round: input.round + 1 })
        await ctx.waitForSignal('go')
        return `round ${input.round}`
      },
      { singleton: { key: (input: { key: string }) => input.key } },
    )
    const looping = await engine.start('loop', { key: 'k', round: 1 })
    await env.settle()
    const waiter = await engine.start('loop', { key: 'k', round: 3 })
    assert.equal(waiter.queued, true, 'the chain holds the slot')
    const last = (await engine.listRuns({ status: 'waiting' })).runs
    assert.equal(last.length, 1, 'one run of the chain waits')
    assert.deepEqual(await statuses(engine, [looping.runId, waiter.runId]), ['continued', 'queued'])
    await engine.signal({ runId: last[0]?.id as string, name: 'go' }, null)
    await engine.waitForRun(last[0]?.id as string)
    await env.settle()
    assert.deepEqual(await statuses(engine, [waiter.runId]), ['waiting'])
  })

  test('a child over its key limit with onFull reject: the parent call fails, caused by E_SINGLETON_FULL', async (env) => {
    const engine = await env.engine()
    registerCheckout(engine, { onFull: 'reject' })
    engine.register('parent', 1, async (ctx) => {
      try {
        await ctx.child('checkout', { cart: 'c1', n: 9 })
        return 'started'
      } catch (error) {
        const e = error as { code?: string; cause?: { code?: string } }
        return `${e.code} ${e.cause?.code}`
      }
    })
    await engine.start('checkout', { cart: 'c1', n: 1 })
    const parent = await engine.start('parent', null)
    assert.deepEqual(
      await engine.waitForRun(parent.runId),
      { runId: parent.runId, status: 'completed', output: 'E_CHILD_FAILED E_SINGLETON_FULL' },
      'the child never started',
    )
  })

  test('a retry with edited input and a fork take a slot of their key like a start', async (env) => {
    const engine = await env.engine()
    registerCheckout(engine)
    const holder = await engine.start('checkout', { cart: 'c1', n: 1 })
    await env.settle()
    const retried = await engine.retryWithInput(holder.runId, { cart: 'c1', n: 2 })
    assert.equal(retried.queued, true, 'same cart: waits for the holder')
    const forked = await engine.fork(holder.runId, { fromSeq: 0 })
    assert.equal(forked.queued, true, 'a fork of the same input: waits too')
    const elsewhere = await engine.retryWithInput(holder.runId, { cart: 'c2', n: 3 })
    assert.equal(elsewhere.queued, undefined, 'another cart: admitted')
    assert.deepEqual(await statuses(engine, [retried.runId, forked.runId]), ['queued', 'queued'])
  })

  test('a resubmit of a queued run says queued; a compensating cancel of one dequeues it at once', async (env) => {
    const engine = await env.engine()
    registerCheckout(engine)
    await engine.start('checkout', { cart: 'c1', n: 1 })
    const input = { cart: 'c1', n: 2 }
    const first = await engine.start('checkout', input, { runId: 'waiter' })
    const again = await engine.start('checkout', input, { runId: 'waiter' })
    assert.deepEqual(
      [first.queued, again],
      [true, { runId: 'waiter', existing: true, queued: true }],
    )
    // Never started: nothing to compensate, and it must not keep its place until promoted.
    await engine.cancel('waiter', { compensate: true })
    assert.deepEqual(await statuses(engine, ['waiter']), ['cancelled'])
  })

  test('an engine that does not register the workflow cannot copy a keyed run', async (env) => {
    const engine = await env.engine()
    registerCheckout(engine)
    const holder = await engine.start('checkout', { cart: 'c1', n: 1 })
    const dashboardOnly = await env.engine({ drive: false })
    await assert.rejects(dashboardOnly.retryWithInput(holder.runId, { cart: 'c1', n: 2 }), {
      code: 'E_INVALID_ARGUMENT',
      message: /singleton key "c1" of workflow "checkout", which this engine does not register/,
    })
  })

  test('a holder ended without naming its key: the maintenance sweep promotes its waiter', async (env) => {
    const starter = await env.engine({ drive: false })
    registerCheckout(starter)
    const holder = await starter.start('checkout', { cart: 'c1', n: 1 })
    const waiter = await starter.start('checkout', { cart: 'c1', n: 2 })
    // An engine of an earlier version runs the holder and ends it without naming its key.
    const store = env.handle.store
    const now = env.clock.now()
    const { claimed } = await store.claimRuns({
      owner: 'old-engine',
      now,
      leaseMs: 60_000,
      limit: 10,
      runnable: [{ workflow: 'checkout', version: '1' }],
    })
    assert.deepEqual(
      claimed.map((r) => r.id),
      [holder.runId],
    )
    const fence = { runId: holder.runId, epoch: claimed[0]?.leaseEpoch ?? 0 }
    const [finished] = await store.applyBatch(
      [{ type: 'finishRun', fence, status: 'completed', output: '"old"', error: null }],
      now,
    )
    assert.equal(finished?.status, 'applied')
    assert.deepEqual(await statuses(starter, [waiter.runId]), ['queued'], 'stranded for now')
    // A driving engine's maintenance sweep finds the key's free slot (at its next sweep),
    // and says so: an operator learns an engine of an earlier version is still ending runs.
    const warnings: Array<{ obj: Record<string, unknown>; msg: string }> = []
    const ignore = () => {}
    const logger = {
      debug: ignore,
      info: ignore,
      error: ignore,
      warn: (obj: Record<string, unknown>, msg: string) => void warnings.push({ obj, msg }),
    }
    const driver = await env.engine({ logger })
    registerCheckout(driver)
    await env.skip(1_900_000) // half of the harness's parkUnrunnableAfterMs, and a poll
    assert.deepEqual(await statuses(driver, [waiter.runId]), ['waiting'], 'promoted and started')
    const sweep = warnings.filter(({ msg }) => msg.includes('promoted singleton waiters'))
    assert.deepEqual(
      sweep.map(({ obj }) => obj),
      [{ promoted: 1 }],
      'one warning, counting the run promoted',
    )
    assert.match(sweep[0]?.msg ?? '', /ended without naming their key/)
  })

  test('bad singleton options fail at register; a bad key fails the start, creating nothing', async (env) => {
    const engine = await env.engine()
    const body = async () => 'x'
    for (const singleton of [
      {},
      { key: 'cart' },
      { key: () => 'k', limit: 0 },
      { key: () => 'k', limit: Number.NaN },
      { key: () => 'k', onFull: 'drop' },
      { key: () => 'k', onFull: 'reject', maxQueueDepth: 3 },
      { key: () => 'k', perKey: true },
    ])
      assert.throws(
        () => engine.register('bad', 1, body, { singleton } as never),
        { code: 'E_INVALID_ARGUMENT' },
        JSON.stringify(singleton),
      )
    engine.register('keyed', 1, body, {
      singleton: { key: (input: { k: unknown }) => input.k as string },
    })
    for (const k of [undefined, 7, '', 'x'.repeat(257), '\u0000'])
      await assert.rejects(
        engine.start('keyed', { k }, { runId: `bad-${String(k).length}` }),
        { code: 'E_INVALID_ARGUMENT' },
        String(k),
      )
    assert.deepEqual((await engine.listRuns({})).runs, [], 'no run was created')
  })
})
