import assert from 'node:assert/strict'
import { ChildFailedError, FatalError, type Engine, type WorkflowContext } from '@cairn/core'
import type { StoreOp } from '@cairn/core/contracts'
import { eachStore } from '../helpers/harness.ts'
import { HeldStore } from '../helpers/held_store.ts'

function output(outcome: unknown): unknown {
  return (outcome as { output?: unknown }).output
}

function registerMath(engine: Engine, calls: { double: number }) {
  engine.register('double', 1, async (ctx, n: number) => {
    if (n < 0) throw new FatalError(`negative: ${n}`)
    return ctx.localStep('double', () => {
      calls.double++
      return n * 2
    })
  })
}

eachStore('child workflows', (test) => {
  test('a child runs as a run of its own and its result reaches the parent once', async (env) => {
    const engine = await env.engine()
    const calls = { double: 0 }
    registerMath(engine, calls)
    engine.register('parent', 1, async (ctx, n: number) => {
      const doubled = await ctx.child<number>('double', n)
      return doubled + 1
    })
    const { runId } = await engine.start('parent', 20)
    assert.equal(output(await engine.waitForRun(runId, { timeoutMs: 5_000 })), 41)
    const children = await engine.listRuns({ parentRunId: runId })
    assert.equal(children.runs.length, 1)
    const child = children.runs[0]!
    assert.equal(child.id, `${runId}/0`)
    assert.equal(child.status, 'completed')
    assert.equal(calls.double, 1)
    const [step] = await engine.getSteps(runId)
    assert.deepEqual([step?.kind, step?.name, step?.output], ['child', 'double', 40])
  })

  test("a child's failure fails the parent's wait with the child's error as cause", async (env) => {
    const engine = await env.engine()
    registerMath(engine, { double: 0 })
    engine.register('parent', 1, async (ctx) => {
      try {
        await ctx.child('double', -3)
        return 'no error'
      } catch (error) {
        if (!ChildFailedError.is(error)) throw error
        const cause = (error as Error).cause as Error
        return `${error.code}: ${String((error as { details?: { status?: string } }).details?.status)} / ${cause.message}`
      }
    })
    const { runId } = await engine.start('parent', null)
    assert.equal(
      output(await engine.waitForRun(runId, { timeoutMs: 5_000 })),
      'E_CHILD_FAILED: failed / negative: -3',
    )
  })

  test('a child that finishes before the parent joins it is received once; the parent waited without a lease', async (env) => {
    const engine = await env.engine()
    const calls = { double: 0 }
    registerMath(engine, calls)
    engine.register('parent', 1, async (ctx) => {
      const handle = ctx.startChild<number>('double', 5)
      await ctx.sleep('1h') // the child is long done by now
      return (await handle.result()) + 100
    })
    const { runId } = await engine.start('parent', null)
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'waiting')
    assert.equal((await engine.getRun(`${runId}/0`))?.status, 'completed')
    await env.skip(3_600_000)
    assert.equal(output(await engine.waitForRun(runId, { timeoutMs: 5_000 })), 110)
    assert.equal(calls.double, 1)
  })

  test('a child that cannot start fails the wait at once', async (env) => {
    const engine = await env.engine()
    engine.register('other', 1, async () => 'x')
    engine.register('parent', 1, async (ctx) => {
      const reasons: string[] = []
      for (const attempt of [
        () => ctx.child('no-such-workflow', 1),
        () => ctx.child('other', () => 1),
        () => ctx.child('other', 2, { childId: 'taken' }),
      ]) {
        try {
          await attempt()
        } catch (error) {
          reasons.push(
            `${(error as { code?: string }).code}/${String(((error as Error).cause as { code?: string }).code)}`,
          )
        }
      }
      return reasons
    })
    await engine.start('other', 'different input', { runId: 'taken' })
    const { runId } = await engine.start('parent', null)
    assert.deepEqual(output(await engine.waitForRun(runId, { timeoutMs: 5_000 })), [
      'E_CHILD_FAILED/E_WORKFLOW_NOT_REGISTERED',
      'E_CHILD_FAILED/E_NOT_SERIALIZABLE',
      'E_CHILD_FAILED/E_RUN_ID_CONFLICT',
    ])
  })

  test('all (failFast and waitAll) and allSettled over children', async (env) => {
    const engine = await env.engine()
    registerMath(engine, { double: 0 })
    engine.register('fan', 1, async (ctx, mode: string) => {
      if (mode === 'ok') return ctx.all<number>('double', [1, 2, 3])
      if (mode === 'settled') {
        const settled = await ctx.allSettled<number>('double', [1, -1])
        return settled.map((s) => s.status)
      }
      try {
        await ctx.all('double', [1, -2, 3], { mode: mode as 'failFast' | 'waitAll' })
        return 'no error'
      } catch (error) {
        return (error as { code?: string }).code
      }
    })
    const results: unknown[] = []
    for (const mode of ['ok', 'settled', 'failFast', 'waitAll']) {
      const { runId } = await engine.start('fan', mode)
      results.push(output(await engine.waitForRun(runId, { timeoutMs: 5_000 })))
    }
    assert.deepEqual(results, [
      [2, 4, 6],
      ['fulfilled', 'rejected'],
      'E_CHILD_FAILED',
      'E_CHILD_FAILED',
    ])
  })

  test('cancelling a parent cancels its children and theirs; cancelling a child fails the parent wait', async (env) => {
    const engine = await env.engine()
    engine.register('leaf', 1, async (ctx) => ctx.waitForSignal('never'))
    engine.register('middle', 1, async (ctx) => ctx.child('leaf', null))
    engine.register('top', 1, async (ctx) => ctx.all('middle', [1, 2]))
    const { runId } = await engine.start('top', null)
    await env.settle()
    await env.settle()
    const grandchild = `${runId}/0/0`
    assert.equal((await engine.getRun(grandchild))?.status, 'waiting', 'the tree is running')
    await engine.cancel(runId, { reason: 'customer left' })
    for (const id of [runId, `${runId}/0`, `${runId}/1`, grandchild, `${runId}/1/0`])
      assert.equal((await engine.getRun(id))?.status, 'cancelled', id)

    engine.register('waiter', 1, async (ctx) => {
      try {
        return await ctx.child('leaf', null)
      } catch (error) {
        return (error as { details?: { status?: string } }).details?.status
      }
    })
    const second = await engine.start('waiter', null)
    await env.settle()
    await engine.cancel(`${second.runId}/0`)
    assert.equal(output(await engine.waitForRun(second.runId, { timeoutMs: 5_000 })), 'cancelled')
  })

  test('a child created after its parent was cancelled (the cascade missed it) never starts', async (env) => {
    const store = new HeldStore(env.handle.reopen())
    const engine = await env.engine({ store })
    const operator = await env.engine({ drive: false })
    let childSteps = 0
    engine.register('parent', 1, async (ctx) => ctx.child('kid', null))
    engine.register('kid', 1, async (ctx) => ctx.localStep('effect', () => ++childSteps))
    const isChildCreate = (ops: readonly StoreOp[]) =>
      ops.some((op) => op.type === 'createRun' && op.run.parent !== undefined)
    // The child's create is slow to reach the store; meanwhile the parent is cancelled, and the
    // cascade finds no child to cancel.
    const create = store.holdNextBatch(isChildCreate, 'before')
    const { runId } = await engine.start('parent', null)
    await create.reached
    await operator.cancel(runId, { reason: 'stop everything' })
    create.release()
    await env.settle()
    await env.skip(60_000)
    const kids = await engine.listRuns({ parentRunId: runId })
    assert.equal(kids.runs.length, 1, 'the child was created')
    const kid = kids.runs[0]
    assert.equal(kid?.status, 'cancelled')
    assert.match(kid?.error?.message ?? '', /parent run .* was cancelled/)
    assert.equal(childSteps, 0, 'the child ran nothing')
  })

  test('a parent replayed after a crash finds its child: never started twice, result received once', async (env) => {
    const calls = { double: 0 }
    const body = async (ctx: WorkflowContext) => {
      const value = await ctx.child<number>('slow-double', 7, { childId: 'the-child' })
      await ctx.sleep('1h')
      return value
    }
    const first = await env.engine({ instanceId: 'first' })
    first.register('slow-double', 1, async (ctx, n: number) => {
      await ctx.sleep('10m')
      return ctx.localStep('double', () => (calls.double++, n * 2))
    })
    first.register('parent', 1, body)
    const { runId } = await first.start('parent', null)
    await env.settle()
    await first.close()
    const second = await env.engine({ instanceId: 'second' })
    second.register('slow-double', 1, async (ctx, n: number) => {
      await ctx.sleep('10m')
      return ctx.localStep('double', () => (calls.double++, n * 2))
    })
    second.register('parent', 1, body)
    await env.skip(600_000)
    await env.skip(3_600_000)
    assert.equal(output(await second.waitForRun(runId, { timeoutMs: 5_000 })), 14)
    assert.equal(calls.double, 1)
    assert.equal((await second.listRuns({ parentRunId: runId })).runs.length, 1)
  })

  test("a parent's execution timeout cancels its children", async (env) => {
    const engine = await env.engine()
    engine.register('leaf', 1, async (ctx) => ctx.waitForSignal('never'))
    engine.register('bounded', 1, async (ctx) => ctx.child('leaf', null), {
      executionTimeoutMs: 60_000,
    })
    const { runId } = await engine.start('bounded', null)
    await env.settle()
    assert.equal((await engine.getRun(`${runId}/0`))?.status, 'waiting')
    await env.skip(60_000)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'cancelled')
    await env.settle()
    assert.equal((await engine.getRun(`${runId}/0`))?.status, 'cancelled')
  })
})
