import assert from 'node:assert/strict'
import { FatalError, type WorkflowContext } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'
import { FlakyStore } from '../helpers/flaky_store.ts'

/** A checkout: reserve, charge, ship — each undone by its compensation if a later step fails. */
function checkout(log: string[], options: { failShipping: boolean; sleepBetween?: boolean }) {
  return async (ctx: WorkflowContext) => {
    const stock = await ctx.localStep('reserve', () => 'stock-1', {
      compensate: (id) => log.push(`release ${id}`),
    })
    const charge = await ctx.localStep('charge', () => 'ch-9', {
      compensate: (id) => log.push(`refund ${id}`),
    })
    if (options.sleepBetween) await ctx.sleep('1h')
    await ctx.localStep(
      'ship',
      () => {
        if (options.failShipping) throw new FatalError('carrier down')
        return 'shipped'
      },
      { compensate: () => log.push('recall') },
    )
    return [stock, charge]
  }
}

eachStore('sagas', (test) => {
  test('a failed run undoes its completed steps in reverse order, then fails with the original error', async (env) => {
    const engine = await env.engine()
    const log: string[] = []
    engine.register('checkout', 1, checkout(log, { failShipping: true }))
    const { runId } = await engine.start('checkout', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'failed')
    assert.match(JSON.stringify(outcome), /carrier down/)
    assert.deepEqual(log, ['refund ch-9', 'release stock-1'])
    const steps = (await engine.getSteps(runId)).map((s) => `${s.name}:${s.status}`)
    assert.deepEqual(steps, [
      'reserve:completed',
      'charge:completed',
      'ship:failed',
      'compensate:charge:completed',
      'compensate:reserve:completed',
    ])
  })

  test('a run that succeeds runs no compensation', async (env) => {
    const engine = await env.engine()
    const log: string[] = []
    engine.register('checkout', 1, checkout(log, { failShipping: false }))
    const { runId } = await engine.start('checkout', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.deepEqual(log, [])
  })

  test('a crash while unwinding never re-runs a finished compensation', async (env) => {
    const log: string[] = []
    let refundRuns = 0
    let releaseCalls = 0
    // `hangRelease`: the first engine's release never returns — it "dies" mid-unwinding,
    // after the refund was recorded.
    const body = (hangRelease: boolean) => async (ctx: WorkflowContext) => {
      await ctx.localStep('reserve', () => 'stock-1', {
        compensate: (id) => {
          releaseCalls++
          return hangRelease ? new Promise(() => {}) : log.push(`release ${id}`)
        },
      })
      await ctx.localStep('charge', () => 'ch-9', {
        compensate: (id) => {
          refundRuns++
          log.push(`refund ${id}`)
        },
      })
      await ctx.localStep('ship', () => {
        throw new FatalError('carrier down')
      })
    }
    const first = await env.engine({ instanceId: 'first' })
    first.register('checkout', 1, body(true))
    const { runId } = await first.start('checkout', null)
    for (let i = 0; i < 50 && releaseCalls === 0; i++) await env.settle()
    assert.equal(releaseCalls, 1, 'the first engine got as far as the release')
    await first.close(0)
    const second = await env.engine({ instanceId: 'second' })
    second.register('checkout', 1, body(false))
    await env.skip(60_000) // the first engine's lease is gone: the second takes the run
    const outcome = await second.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'failed')
    assert.equal(refundRuns, 1, 'the recorded refund was not run again')
    assert.equal(releaseCalls, 2, 'the interrupted release ran again (at-least-once)')
    assert.deepEqual(log, ['refund ch-9', 'release stock-1'])
  })

  test('compensations registered across a suspension replay in order', async (env) => {
    const engine = await env.engine()
    const log: string[] = []
    engine.register('checkout', 1, checkout(log, { failShipping: true, sleepBetween: true }))
    const { runId } = await engine.start('checkout', null)
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'waiting')
    await env.skip(3_600_000)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
    assert.deepEqual(log, ['refund ch-9', 'release stock-1'])
  })

  test('a failing compensation is recorded and the others still run', async (env) => {
    const engine = await env.engine()
    const log: string[] = []
    engine.register('checkout', 1, async (ctx) => {
      await ctx.localStep('a', () => 1, { compensate: () => log.push('undo a') })
      await ctx.localStep('b', () => 2, {
        compensate: () => {
          throw new FatalError('cannot undo b')
        },
      })
      throw new FatalError('boom')
    })
    const { runId } = await engine.start('checkout', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'failed')
    assert.match(JSON.stringify(outcome), /boom/)
    assert.deepEqual(log, ['undo a'])
    const steps = (await engine.getSteps(runId)).map((s) => `${s.name}:${s.status}`)
    assert.deepEqual(steps, [
      'a:completed',
      'b:completed',
      'compensate:b:failed',
      'compensate:a:completed',
    ])
  })

  test('cancel with compensation: a waiting run undoes its completed steps, then ends cancelled', async (env) => {
    const engine = await env.engine()
    const log: string[] = []
    let shipped = 0
    engine.register('order', 1, async (ctx) => {
      await ctx.localStep('reserve', () => 'stock-1', {
        compensate: (id) => log.push(`release ${id}`),
      })
      await ctx.localStep('charge', () => 'ch-9', { compensate: (id) => log.push(`refund ${id}`) })
      await ctx.waitForSignal('ship-ok')
      await ctx.localStep('ship', () => shipped++)
    })
    const { runId } = await engine.start('order', null)
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'waiting')
    await engine.cancel(runId, { compensate: true, reason: 'customer changed their mind' })
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'cancelled')
    assert.match(JSON.stringify(outcome), /customer changed their mind/)
    assert.deepEqual(log, ['refund ch-9', 'release stock-1'])
    assert.equal(shipped, 0, 'no new step started')
    // The signal wait took no position it could keep: the compensations follow densely.
    const steps = (await engine.getSteps(runId)).map((s) => `${s.seq}:${s.name}:${s.status}`)
    assert.deepEqual(steps, [
      '0:reserve:completed',
      '1:charge:completed',
      '2:compensate:charge:completed',
      '3:compensate:reserve:completed',
    ])
    // Idempotent: asking again changes nothing; a run that finished on its own cannot be cancelled.
    await engine.cancel(runId, { compensate: true })
    assert.equal((await engine.getRun(runId))?.status, 'cancelled')
    engine.register('quick', 1, async () => 'done')
    const quick = await engine.start('quick', null)
    await engine.waitForRun(quick.runId, { timeoutMs: 5_000 })
    await assert.rejects(engine.cancel(quick.runId, { compensate: true }), {
      code: 'E_RUN_TERMINAL',
      message: /already finished \(completed\)/,
    })
  })

  test('cancel with compensation of a running run lets the step in flight finish, undoes it too, starts nothing new', async (env) => {
    const engine = await env.engine()
    const log: string[] = []
    const inFlight = Promise.withResolvers<void>()
    const release = Promise.withResolvers<void>()
    let later = 0
    engine.register('busy', 1, async (ctx) => {
      await ctx.localStep('a', () => 'A', { compensate: () => log.push('undo A') })
      await ctx.localStep(
        'b',
        async () => {
          inFlight.resolve()
          await release.promise
          return 'B'
        },
        { compensate: () => log.push('undo B') },
      )
      await ctx.localStep('c', () => later++)
    })
    const { runId } = await engine.start('busy', null)
    await inFlight.promise
    await engine.cancel(runId, { compensate: true })
    release.resolve()
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'cancelled')
    assert.deepEqual(log, ['undo B', 'undo A'])
    assert.equal(later, 0)
  })

  test('cancel with compensation of a child tells the parent; resending the cancel changes nothing', async (env) => {
    const engine = await env.engine()
    const log: string[] = []
    engine.register('child', 1, async (ctx) => {
      await ctx.localStep('hold', () => 'h', { compensate: () => log.push('unhold') })
      await ctx.waitForSignal('never')
    })
    engine.register('parent', 1, async (ctx) => {
      try {
        return await ctx.child('child', null)
      } catch (error) {
        return (error as { details?: { status?: string } }).details?.status
      }
    })
    const { runId } = await engine.start('parent', null)
    await env.settle()
    await env.settle()
    await engine.cancel(`${runId}/0`, { compensate: true })
    await engine.cancel(`${runId}/0`, { compensate: true }).catch(() => undefined)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal((outcome as { output?: unknown }).output, 'cancelled')
    assert.deepEqual(log, ['unhold'])
  })

  test('cancel with compensation starts no retry of a failed attempt', async (env) => {
    const engine = await env.engine()
    const log: string[] = []
    let attempts = 0
    engine.register('flaky', 1, async (ctx) => {
      await ctx.localStep('a', () => 'A', { compensate: () => log.push('undo A') })
      await ctx.localStep(
        'b',
        () => {
          attempts++
          throw new Error('down')
        },
        { retries: 5, backoff: { type: 'fixed', delay: '1h' } },
      )
    })
    const { runId } = await engine.start('flaky', null)
    await env.settle()
    assert.equal(attempts, 1)
    assert.equal((await engine.getRun(runId))?.status, 'waiting', 'suspended until the retry')
    await engine.cancel(runId, { compensate: true })
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'cancelled')
    await env.skip(2 * 3_600_000)
    assert.equal(attempts, 1, 'the retry never ran')
    assert.deepEqual(log, ['undo A'])
  })

  test('cancel with compensation retried after a lost acknowledgement still reaches the running turn', async (env) => {
    const store = new FlakyStore(env.handle.reopen())
    const engine = await env.engine({ store })
    const log: string[] = []
    const inFlight = Promise.withResolvers<void>()
    const release = Promise.withResolvers<void>()
    engine.register('busy', 1, async (ctx) => {
      await ctx.localStep('a', () => 'A', { compensate: () => log.push('undo A') })
      await ctx.localStep('b', async () => {
        inFlight.resolve()
        await release.promise
        return 'B'
      })
      return 'done'
    })
    const { runId } = await engine.start('busy', null)
    await inFlight.promise
    store.failNext(1, 'after') // the cancel is accepted, the caller never hears it
    await assert.rejects(engine.cancel(runId, { compensate: true }), { code: 'E_STORE_FAILURE' })
    await engine.cancel(runId, { compensate: true }) // the retry: a duplicate of the first
    release.resolve()
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'cancelled', 'the busy turn unwound instead of completing')
    assert.deepEqual(log, ['undo A'])
  })
})
