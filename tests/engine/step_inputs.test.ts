/**
 * A registered step's input is recorded with its checkpoint (the codec's text) and read back,
 * decoded, by getSteps and getStepsPage, on every store: kept when the step retries, copied
 * by a fork; local steps record none.
 */
import assert from 'node:assert/strict'
import { JsonCodec, type Engine, type StepInfo } from '@cairn/core'
import { eachStore, type Env } from '../helpers/harness.ts'

const ORDER = { id: 'o-1', skus: new Set(['a', 'b']), placedAt: new Date('2026-01-02T00:00:00Z') }

/** [name, kind, status, input] of each step, from getSteps and from getStepsPage (must agree). */
async function inputs(engine: Engine, runId: string): Promise<unknown[][]> {
  const rows = (steps: StepInfo[]) => steps.map((s) => [s.name, s.kind, s.status, s.input])
  const all = rows(await engine.getSteps(runId))
  const page = rows((await engine.getStepsPage(runId, { fromSeq: 0, limit: 100 })).steps)
  assert.deepEqual(page, all, 'getStepsPage agrees with getSteps')
  return all
}

/** The stored input text of each position: what a remote worker would be handed. */
async function storedInputs(env: Env, runId: string): Promise<Array<string | null>> {
  return (await env.handle.store.loadCheckpoints(runId)).map((c) => c.input)
}

eachStore('step inputs', (test) => {
  test('a registered step records its input; a local step and a step without input record none', async (env) => {
    const engine = await env.engine()
    engine.registerStep('reserve', (order: typeof ORDER) => order.skus.size)
    engine.registerStep('ping', () => 'pong')
    engine.register('w', 1, async (ctx) => {
      await ctx.localStep('prepare', () => 'ready')
      await ctx.step('reserve', ORDER)
      await ctx.step('ping', undefined)
      return 'done'
    })
    const { runId } = await engine.start('w', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.deepEqual(await inputs(engine, runId), [
      ['prepare', 'local', 'completed', undefined],
      ['reserve', 'step', 'completed', ORDER],
      ['ping', 'step', 'completed', undefined],
    ])
    const stored = await storedInputs(env, runId)
    assert.deepEqual([stored[0], stored[2]], [null, null])
    assert.deepEqual(new JsonCodec().decode(stored[1] as string), ORDER, 'the codec text')
  })

  test('a retried registered step keeps its input while retrying and once completed', async (env) => {
    const engine = await env.engine()
    let calls = 0
    engine.registerStep(
      'charge',
      (amount: { cents: number }) => {
        calls += 1
        if (calls === 1) throw new Error('gateway down')
        return amount.cents
      },
      { retries: 1, backoff: { type: 'fixed', delay: '1h', jitter: 0 } },
    )
    engine.register('w', 1, async (ctx) => ctx.step('charge', { cents: 4_200 }))
    const { runId } = await engine.start('w', null)
    await env.settle()
    assert.deepEqual(await inputs(engine, runId), [
      ['charge', 'step', 'retrying', { cents: 4_200 }],
    ])
    await env.skip(3_600_000)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.equal(calls, 2)
    assert.deepEqual(await inputs(engine, runId), [
      ['charge', 'step', 'completed', { cents: 4_200 }],
    ])
  })

  test('a failed registered step keeps its input', async (env) => {
    const engine = await env.engine()
    engine.registerStep(
      'charge',
      () => {
        throw new Error('card declined')
      },
      { retries: 0 },
    )
    engine.register('w', 1, async (ctx) => ctx.step('charge', { cents: 1 }))
    const { runId } = await engine.start('w', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
    assert.deepEqual(await inputs(engine, runId), [['charge', 'step', 'failed', { cents: 1 }]])
  })

  test('an input the codec refuses fails the step, which records none', async (env) => {
    const engine = await env.engine()
    let calls = 0
    engine.registerStep('charge', () => ++calls)
    engine.register('w', 1, async (ctx) => ctx.step('charge', { callback: () => 1 }))
    const { runId } = await engine.start('w', null)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
    assert.equal(calls, 0)
    assert.deepEqual(await inputs(engine, runId), [['charge', 'step', 'failed', undefined]])
    assert.equal((await engine.getSteps(runId))[0]?.error?.code, 'E_NOT_SERIALIZABLE')
  })

  test('a fork keeps the inputs of the steps it copies; re-run steps record theirs again', async (env) => {
    const engine = await env.engine()
    engine.registerStep('reserve', (order: typeof ORDER) => order.skus.size)
    engine.registerStep('ship', (to: string) => `shipped to ${to}`)
    engine.register('w', 1, async (ctx, to: string) => {
      await ctx.step('reserve', ORDER)
      return ctx.step('ship', to)
    })
    const source = (await engine.start('w', 'Lyon')).runId
    assert.equal((await engine.waitForRun(source, { timeoutMs: 5_000 })).status, 'completed')
    const { runId } = await engine.fork(source, { fromSeq: 1, input: 'Oslo' })
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
    assert.deepEqual(await inputs(engine, runId), [
      ['reserve', 'step', 'completed', ORDER],
      ['ship', 'step', 'completed', 'Oslo'],
    ])
    assert.deepEqual(
      (await storedInputs(env, runId))[0],
      (await storedInputs(env, source))[0],
      'the copied text',
    )
  })
})
