/**
 * engine.exportHistory on every store, replayed with replayHistory: a history recorded on a SQL
 * store replays as one recorded in memory (payloads as stored, times as integers), survives a
 * trip through JSON, and catches a changed workflow with the message production parks with.
 */
import assert from 'node:assert/strict'
import type { Engine, RecordedHistory, WorkflowContext } from '@cairn/core'
import { replayHistory } from '@cairn/core/testing'
import { eachStore } from '../helpers/harness.ts'

async function checkout(ctx: WorkflowContext, order: { id: string; total: number }) {
  const reserved = await ctx.localStep('reserve', () => ({ at: new Date(0), items: [order.id] }))
  const approval = await ctx.waitForSignal<{ by: string }>('approve', { timeoutMs: 86_400_000 })
  await ctx.sleep('1h')
  const invoice = await ctx.child<string>('invoice', order.id)
  const id = await ctx.sideEffect(() => 'side-1', 'invoice-id')
  await ctx.localStep('ship', () => `${order.id} ${approval.by} ${invoice} ${id}`)
  return { reserved, invoice }
}

function registerAll(engine: Engine, body = checkout) {
  engine.register('checkout', 1, body)
  engine.register('invoice', 1, async (ctx, id: string) => ctx.localStep('pdf', () => `pdf ${id}`))
}

function roundTrip(history: RecordedHistory): RecordedHistory {
  return JSON.parse(JSON.stringify(history)) as RecordedHistory
}

eachStore('replay history', (test) => {
  test('a finished run exports and replays to its end', async (env) => {
    const engine = await env.engine()
    registerAll(engine)
    const { runId } = await engine.start('checkout', { id: 'o-42', total: 10n })
    await env.settle()
    await engine.signal({ runId, name: 'approve' }, { by: 'ada' })
    await env.settle()
    await env.skip(3_600_000)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.equal(outcome.status, 'completed')

    const exported = await engine.exportHistory(runId)
    const history = roundTrip(exported)
    assert.deepEqual(history, exported, 'plain JSON: nothing lost in the trip')
    assert.equal(history.run.status, 'completed')
    assert.equal(typeof history.run.input, 'string', 'the input as the codec wrote it')
    assert.deepEqual(
      history.checkpoints.map((c) => [c.seq, c.kind, c.name, c.status]),
      [
        [0, 'local', 'reserve', 'completed'],
        [1, 'signal', 'approve', 'completed'],
        [2, 'sleep', 'sleep', 'completed'],
        [3, 'child', 'invoice', 'completed'],
        [4, 'side_effect', 'invoice-id', 'completed'],
        [5, 'local', 'ship', 'completed'],
      ],
    )

    const report = await replayHistory({ register: (e) => registerAll(e) }, history)
    assert.equal(report.positions, 6)
    assert.deepEqual(report.endedAt, { kind: 'finished', status: 'completed' })

    await assert.rejects(
      replayHistory(
        {
          register: (e) =>
            registerAll(e, async (ctx, order) => {
              await ctx.localStep('reserve', () => null)
              await ctx.waitForSignal('approve', { timeoutMs: 86_400_000 })
              await ctx.sleep('1h')
              return ctx.child('billing', order.id)
            }),
        },
        history,
      ),
      {
        code: 'E_NON_DETERMINISM',
        message:
          'position 3: history records child "invoice", the workflow code asked for child "billing"',
      },
    )
  })

  test('a waiting run exports its open wait; a changed body is parked as the replay says', async (env) => {
    const engine = await env.engine()
    registerAll(engine)
    const { runId } = await engine.start('checkout', { id: 'o-43', total: 1 })
    await env.settle()
    const history = roundTrip(await engine.exportHistory(runId))
    assert.equal(history.run.status, 'waiting')
    assert.deepEqual(
      history.checkpoints.map((c) => [c.kind, c.status]),
      [
        ['local', 'completed'],
        ['signal', 'waiting'],
      ],
    )
    const passing = await replayHistory({ register: (e) => registerAll(e) }, history)
    assert.equal(passing.positions, 1)
    assert.equal(passing.endedAt.kind, 'waiting')

    // The same change, deployed: production parks the run with the replay's message.
    const changed = async (ctx: WorkflowContext) => {
      await ctx.localStep('reserve', () => null)
      return ctx.waitForSignal('approved', { timeoutMs: 86_400_000 })
    }
    const replayError = await replayHistory(changed, history).then(
      () => assert.fail('the change replays'),
      (error: Error) => error,
    )
    await engine.close(50)
    const next = await env.engine({ instanceId: 'engine-deployed' })
    next.register('checkout', 1, changed)
    await next.signal({ runId, name: 'approve' }, { by: 'ada' })
    await env.skip(1_000)
    const run = await next.getRun(runId)
    assert.equal(run?.status, 'parked')
    assert.equal(run?.parkReason?.message, replayError.message)
  })

  test('exportHistory of an unknown run: E_RUN_NOT_FOUND', async (env) => {
    const engine = await env.engine({ drive: false })
    await assert.rejects(engine.exportHistory('no-such-run'), { code: 'E_RUN_NOT_FOUND' })
  })
})
