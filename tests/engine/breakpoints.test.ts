import assert from 'node:assert/strict'
import {
  InvalidArgumentError,
  NotAtBreakpointError,
  RunNotFoundError,
  type WorkflowContext,
} from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

eachStore('breakpoints', (test) => {
  test('a run stops at a breakpoint, holding no lease, until continued with a note', async (env) => {
    const engine = await env.engine()
    let shipped = 0
    engine.register('ship', 1, async (ctx) => {
      const note = await ctx.breakpoint<{ by: string }>('check-address')
      await ctx.localStep('ship', () => shipped++)
      return note?.by
    })
    const { runId } = await engine.start('ship', null)
    await env.settle()
    const stopped = await engine.getRun(runId)
    assert.equal(stopped?.status, 'waiting')
    assert.match(stopped?.waitingOn ?? '', /breakpoint "check-address"/)
    assert.equal(engine.activeRuns, 0)
    await env.skip(7 * 24 * 3_600_000) // nothing moves it but an operator
    assert.equal(shipped, 0)
    const receipt = await engine.continue(runId, { note: { by: 'grace' } })
    assert.equal(receipt.label, 'check-address')
    assert.equal(
      ((await engine.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      'grace',
    )
    assert.equal(shipped, 1)
  })

  test('continuing twice continues once; a continue never reaches a later breakpoint', async (env) => {
    const body = async (ctx: WorkflowContext) => {
      await ctx.breakpoint('first')
      await ctx.breakpoint('second')
      return 'through'
    }
    const first = await env.engine({ instanceId: 'first' })
    first.register('two', 1, body)
    const { runId } = await first.start('two', null)
    await env.settle()
    await first.close()
    // An operator double-clicks while no engine runs: both land on the "first" breakpoint.
    const operator = await env.engine({ instanceId: 'operator', drive: false })
    const a = await operator.continue(runId)
    const b = await operator.continue(runId)
    assert.deepEqual([a.label, a.duplicate], ['first', false])
    assert.deepEqual([b.label, b.duplicate, b.seq], ['first', true, a.seq])
    const second = await env.engine({ instanceId: 'second' })
    second.register('two', 1, body)
    await env.skip(60_000) // the next poll claims the woken run
    const run = await second.getRun(runId)
    assert.equal(run?.status, 'waiting', 'the duplicate did not pass the second breakpoint')
    assert.match(run?.waitingOn ?? '', /breakpoint "second"/)
    assert.equal((await second.continue(runId)).label, 'second')
    assert.equal(
      ((await second.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      'through',
    )
  })

  test('continue names a breakpoint among parallel ones; a run not at one is a clear error', async (env) => {
    const engine = await env.engine()
    engine.register('par', 1, async (ctx) => {
      const [x, y] = await Promise.all([ctx.breakpoint('x'), ctx.breakpoint('y')])
      return [x, y]
    })
    const { runId } = await engine.start('par', null)
    await env.settle()
    await engine.continue(runId, { label: 'y', note: 'Y' })
    await env.settle()
    assert.equal((await engine.getRun(runId))?.status, 'waiting')
    // y has received its continue: only x is still waiting.
    await assert.rejects(engine.continue(runId, { label: 'y' }), NotAtBreakpointError.is)
    await engine.continue(runId, { label: 'x', note: 'X' })
    assert.deepEqual(
      ((await engine.waitForRun(runId, { timeoutMs: 5_000 })) as { output?: unknown }).output,
      ['X', 'Y'],
    )
    await assert.rejects(engine.continue(runId), NotAtBreakpointError.is)
    await assert.rejects(engine.continue('ghost'), RunNotFoundError.is)
  })

  test('reserved names are refused: workflow code and senders cannot forge a continue', async (env) => {
    const engine = await env.engine()
    engine.register('forge', 1, async (ctx) => ctx.waitForSignal('cairn:continue:0'))
    const { runId } = await engine.start('forge', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'failed')
    engine.register('bp', 1, async (ctx) => ctx.breakpoint('stop'))
    const bp = await engine.start('bp', null)
    await env.settle()
    await assert.rejects(
      engine.signal({ runId: bp.runId, name: 'cairn:continue:0' }, 1),
      InvalidArgumentError.is,
    )
    assert.equal((await engine.getRun(bp.runId))?.status, 'waiting')
  })
})
