/**
 * Dead letters against the races a review found (issue 16): a letter is written before its
 * run's ending, and an op of a batch applies on its own (a batch may even be split), so a
 * letter can exist while its run's ending was refused or never written. It then runs only if
 * its run ends `failed` or `dead`; for a run that ends otherwise it ends `cancelled` without
 * running. Also: a letter refused by its workflow's singleton is said at `error`, and a letter
 * of a 255-character run id has an id the engine's own API takes.
 */
import assert from 'node:assert/strict'
import { FakeClock } from '@cairn/core/testing'
import type { StateStore, StoreOp } from '@cairn/core/contracts'
import { silentLogger, type DeadLetter, type Engine } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

const LEASE = 10_000

/** The store, but a cancel by `operator` commits just before the batch ending a run `status`. */
function cancelBeforeEnding(env: Env, operator: () => Engine, status: string): StateStore {
  const inner = env.handle.reopen()
  let fired = false
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'applyBatch')
        return async (ops: readonly StoreOp[], now: number) => {
          const finish = ops.find((op) => op.type === 'finishRun' && op.status === status)
          if (finish !== undefined && !fired) {
            fired = true
            await operator().cancel((finish as { fence: { runId: string } }).fence.runId)
          }
          return target.applyBatch(ops, now)
        }
      const value = Reflect.get(target, prop, target) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

/** The store until a batch writes a dead letter without its run's ending: then down for good. */
function downAfterLoneLetter(env: Env): StateStore {
  const inner = env.handle.reopen()
  let down = false
  return new Proxy(inner, {
    get(target, prop) {
      if (prop === 'applyBatch')
        return async (ops: readonly StoreOp[], now: number) => {
          if (down) throw new Error('the process is gone')
          const results = await target.applyBatch(ops, now)
          const letter = ops.some((op) => op.type === 'createRun' && op.run.id.startsWith('dlq:'))
          if (letter && !ops.some((op) => op.type === 'finishRun')) down = true
          return results
        }
      const value = Reflect.get(target, prop, target) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    },
  })
}

eachStore('dead letters and their endings', (test) => {
  test('a cancel that beats a failing ending: the letter ends cancelled, never runs', async (env) => {
    const buried: string[] = []
    const operator = await env.engine({ drive: false })
    const engine = await env.engine({
      deadLetterWorkflow: 'bury',
      store: cancelBeforeEnding(env, () => operator, 'failed'),
    })
    engine.register('fails', 1, async (ctx) => {
      await ctx.localStep('a', () => 1)
      throw new Error('boom')
    })
    engine.register('bury', 1, async (ctx, letter: DeadLetter) => {
      await ctx.localStep('page', () => void buried.push(letter.deadRunId))
    })
    const { runId } = await engine.start('fails', null)
    await env.settle()
    assert.equal((await operator.getRun(runId))?.status, 'cancelled')
    const letter = await operator.getRun(`dlq:${runId}`)
    assert.equal(letter?.status, 'cancelled', 'the letter exists, ended without running')
    assert.equal(letter?.error?.code, 'E_RUN_CANCELLED')
    assert.deepEqual(buried, [])
  })

  test('a cancel that beats a dead ending: the letter ends cancelled, never runs', async (env) => {
    const buried: string[] = []
    const operator = await env.engine({ drive: false })
    const register = (engine: Engine) => {
      engine.register('poison', 1, async (ctx) => {
        await ctx.localStep('hang', () => new Promise<never>(() => {}))
      })
      engine.register('bury', 1, async (ctx, letter: DeadLetter) => {
        await ctx.localStep('page', () => void buried.push(letter.deadRunId))
      })
    }
    const dying = await env.engine({
      leaseMs: LEASE,
      clock: new FakeClock(env.clock.now()),
      maxRecoveryAttempts: 0,
      deadLetterWorkflow: 'bury',
    })
    register(dying)
    const { runId } = await dying.start('poison', null)
    await env.settle()
    await env.skip(LEASE + 1)
    const ender = await env.engine({
      leaseMs: LEASE,
      maxRecoveryAttempts: 0,
      deadLetterWorkflow: 'bury',
      store: cancelBeforeEnding(env, () => operator, 'dead'),
      drive: false,
    })
    register(ender)
    await ender.startDriving()
    await env.settle()
    assert.equal((await operator.getRun(runId))?.status, 'cancelled')
    assert.equal((await operator.getRun(`dlq:${runId}`))?.status, 'cancelled')
    assert.deepEqual(buried, [])
  })

  test('a letter committed without its ending waits: the run completes, the letter never runs', async (env) => {
    let flaky = true
    const buried: string[] = []
    const register = (engine: Engine) => {
      engine.register('flaky', 1, async (ctx) => {
        await ctx.localStep('a', () => 1)
        if (flaky) throw new Error('transient')
        return 'ok'
      })
      engine.register('bury', 1, async (ctx, letter: DeadLetter) => {
        await ctx.localStep('page', () => void buried.push(letter.deadRunId))
      })
    }
    // maxBatch 1: the letter and the ending go in two transactions; the store is gone between.
    const first = await env.engine({
      leaseMs: LEASE,
      maxBatch: 1,
      deadLetterWorkflow: 'bury',
      clock: new FakeClock(env.clock.now()),
      store: downAfterLoneLetter(env),
      drive: false,
    })
    register(first)
    await first.startDriving()
    const { runId } = await first.start('flaky', null)
    await new Promise((resolve) => setTimeout(resolve, 300))
    await first.close(0)
    const healthy = await env.engine({ leaseMs: LEASE, deadLetterWorkflow: 'bury', drive: false })
    assert.equal((await healthy.getRun(runId))?.status, 'running')
    assert.ok(await healthy.getRun(`dlq:${runId}`), 'the letter committed alone')
    flaky = false
    await env.skip(LEASE + 1)
    register(healthy)
    await healthy.startDriving()
    await env.settle()
    assert.equal((await healthy.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    await env.skip(LEASE + 1) // the letter, handed back while its run was live, looks again
    assert.equal((await healthy.getRun(`dlq:${runId}`))?.status, 'cancelled')
    assert.deepEqual(buried, [])
  })

  test('a letter refused by its singleton is said at error; a long run id gets a usable letter id', async (env) => {
    const errors: string[] = []
    const logger = { ...silentLogger, error: (_o: object, msg: string) => void errors.push(msg) }
    const engine = await env.engine({ deadLetterWorkflow: 'bury', logger })
    engine.register('fails', 1, async (_ctx, n: number) => {
      throw new Error(`boom ${n}`)
    })
    engine.register(
      'bury',
      1,
      async (ctx, letter: DeadLetter) => {
        await ctx.sleep(60_000)
        return letter.deadRunId
      },
      { singleton: { key: () => 'pager', onFull: 'reject' } },
    )
    const a = await engine.start('fails', 1, { runId: 'r'.repeat(255) })
    await env.settle()
    const b = await engine.start('fails', 2)
    await env.settle()
    assert.equal((await engine.getRun(b.runId))?.status, 'failed')
    assert.equal(await engine.getRun(`dlq:${b.runId}`), null)
    assert.deepEqual(errors, [
      "cairn: a dead letter was refused by its workflow's singleton key; its run has none",
    ])
    const { runs } = await engine.listRuns({ workflow: 'bury' })
    assert.equal(runs.length, 1)
    const letterId = runs[0]?.id as string
    assert.ok(letterId.startsWith('dlq:') && letterId.length <= 255, letterId)
    assert.equal((runs[0]?.input as DeadLetter).deadRunId, a.runId)
    await engine.cancel(letterId) // the engine's own API takes its id
    assert.equal((await engine.getRun(letterId))?.status, 'cancelled')
  })
})
