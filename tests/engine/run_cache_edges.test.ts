/**
 * Edges of the run cache (engine/run_cache.ts), each found by a review and each failing before
 * its fix: a cached turn must never resume another run that took its id after a delete; a
 * renewal of the previous claim's lease, answered `fenced` after a resume, must not stop the
 * resumed turn; a remote step's once-per-turn pickup check must be asked again by a resumed
 * turn as by a replayed one. The last two run with the cache off too (the replay's answer).
 */
import assert from 'node:assert/strict'
import { ErrorCodes, silentLogger, type EngineTransport, type Logger } from '@cairn/core'
import type { StoreOp } from '@cairn/core/contracts'
import { createMemoryTransport, settle } from '@cairn/core/testing'
import { eachStore } from '../helpers/harness.ts'
import { HeldStore } from '../helpers/held_store.ts'

const HOUR = 3_600_000
const isSuspend = (ops: readonly StoreOp[]) => ops.some((op) => op.type === 'suspendRun')
const isRenewal = (ops: readonly StoreOp[]) => ops.some((op) => op.type === 'renewLease')

eachStore('run cache: a run id taken again after a delete', (test) => {
  test('the new run, started on another engine and woken here, replays its own history', async (env) => {
    const a = await env.engine()
    const b = await env.engine({ drive: false })
    const ran: string[] = []
    for (const engine of [a, b])
      engine.register('nap', 1, async (ctx, input: string) => {
        const v = await ctx.localStep('first', () => {
          ran.push(`first:${input}`)
          return input
        })
        await ctx.sleep('1h')
        return ctx.localStep('after', () => {
          ran.push(`after:${v}`)
          return v
        })
      })
    await a.start('nap', 'old', { runId: 'x' })
    await env.settle()
    assert.equal((await a.getRun('x'))?.status, 'waiting') // cached on a at epoch 1
    // Cancelled and deleted from b: a hears of neither, and keeps its cached turn (epoch 1).
    await b.cancel('x')
    await b.deleteRun('x')
    await b.startDriving()
    await b.start('nap', 'new', { runId: 'x' }) // created leased to b: epoch 1
    await env.settle()
    assert.equal((await b.getRun('x'))?.status, 'waiting')
    await b.close() // a takes the wake: claim epoch 2 = stale turn's 1 + 1
    await env.skip(HOUR)
    const outcome = await a.waitForRun('x', { timeoutMs: 5_000 })
    assert.deepEqual(ran, ['first:old', 'first:new', 'after:new'])
    assert.deepEqual(outcome, { runId: 'x', status: 'completed', output: 'new' })
  })

  test('the new run, started here and woken here, never resumes the old body', async (env) => {
    const a = await env.engine()
    const ran: string[] = []
    a.register('nap', 1, async (ctx, input: string) => {
      const v = await ctx.localStep('first', () => {
        ran.push(`first:${input}`)
        return input
      })
      if (input === 'new') await ctx.waitForEvent('go')
      else await ctx.sleep('1h')
      return ctx.localStep('after', () => {
        ran.push(`after:${v}`)
        return v
      })
    })
    await a.start('nap', 'old', { runId: 'x' })
    await env.settle()
    await a.cancel('x')
    await a.deleteRun('x')
    await a.start('nap', 'new', { runId: 'x' })
    await env.settle()
    assert.equal((await a.getRun('x'))?.status, 'waiting')
    await a.publishEvent('go', {})
    await env.skip(HOUR)
    const outcome = await a.waitForRun('x', { timeoutMs: 5_000 })
    assert.deepEqual(ran, ['first:old', 'first:new', 'after:new'])
    assert.deepEqual(outcome, { runId: 'x', status: 'completed', output: 'new' })
  })
})

for (const maxCachedRuns of [0, 1000]) {
  eachStore(`run cache: a stale lease renewal (maxCachedRuns ${maxCachedRuns})`, (test) => {
    test('a fenced renewal of the previous turn does not stop the resumed turn', async (env) => {
      const store = new HeldStore(env.handle.store)
      const lost: string[] = []
      const logger: Logger = {
        ...silentLogger,
        warn: (obj: unknown, msg?: string) => {
          if (msg === 'cairn: lost a run lease') lost.push((obj as { reason: string }).reason)
        },
      }
      const engine = await env.engine({ store, maxCachedRuns, logger })
      env.clock.settler = () => settle() // held writes: do not wait for the engine to be quiet
      let after = 0
      engine.register('nap', 1, async (ctx) => {
        await ctx.sleep('1h')
        return ctx.localStep('after', () => ++after)
      })
      const suspend = store.holdNextBatch(isSuspend, 'before')
      const { runId } = await engine.start('nap', null)
      await suspend.reached // the turn is suspending; its write waits at the store's door
      await env.clock.advance(10_000) // the LeaseKeeper renews the (still listed) turn: queued behind
      const renewal = store.holdNextAnswer(isRenewal)
      suspend.release()
      await renewal.reached // the renewal applied after the suspend: fenced; its answer held
      await settle()
      assert.equal((await store.getRun(runId))?.status, 'waiting')
      await env.clock.advance(HOUR) // the sleep is due: claimed again (epoch 2), resumed or replayed
      await settle(20)
      renewal.release() // the stale answer arrives: fenced
      await settle(20)
      const outcome = await engine.waitForRun(runId, { timeoutMs: 2_000 }).catch((e) => e)
      const run = await store.getRun(runId)
      assert.deepEqual(lost, [], 'a turn was stopped as lost')
      assert.deepEqual(outcome, { runId, status: 'completed', output: 1 }, `run is ${run?.status}`)
    })
  })
}

/** The memory transport, whose first withdraw fails (a broker briefly unreachable). */
function flakyWithdraw(): { transport: EngineTransport; calls: string[] } {
  const inner = createMemoryTransport().engine()
  const calls: string[] = []
  const transport = new Proxy(inner, {
    get(target, prop) {
      if (prop === 'withdraw')
        return async (task: Parameters<EngineTransport['withdraw']>[0]) => {
          calls.push(`withdraw#${calls.length + 1}`)
          if (calls.length === 1) throw new Error('broker unreachable')
          return target.withdraw(task)
        }
      const value = Reflect.get(target, prop, target)
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
  return { transport, calls }
}

for (const maxCachedRuns of [0, 1000]) {
  eachStore(
    `run cache: a pickup check the transport could not answer (maxCachedRuns ${maxCachedRuns})`,
    (test) => {
      test('the next turn asks the transport again and the attempt fails E_PICKUP_TIMEOUT', async (env) => {
        const { transport, calls } = flakyWithdraw()
        const engine = await env.engine({ maxCachedRuns, transports: { memory: transport } })
        engine.registerStep('ship', () => 'never here', {
          transport: 'memory',
          pickupTimeoutMs: 20_000,
          retries: 0,
        })
        engine.register('order', 1, async (ctx) => ctx.step('ship', null))
        const { runId } = await engine.start('order', null)
        await env.settle()
        for (let i = 0; i < 12; i++) await env.skip(10_000) // 2 minutes, no worker ever
        const run = await engine.getRun(runId)
        assert.ok(
          calls.length >= 2,
          `withdraw asked ${calls.length} time(s); run ${run?.status}: ${run?.waitingOn}`,
        )
        const outcome = await engine.waitForRun(runId, { timeoutMs: 2_000 })
        assert.equal(outcome.status, 'failed')
        assert.equal(
          outcome.status === 'failed' && (outcome.error as { code?: string }).code,
          ErrorCodes.PICKUP_TIMEOUT,
        )
      })
    },
  )
}
