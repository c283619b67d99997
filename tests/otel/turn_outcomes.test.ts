/**
 * @cairn/core/otel: how a turn span ends for each way a turn can end besides completing,
 * failing or suspending (tracing.test.ts has those) — cancelled, continued, parked, lost —
 * and what disable() does to spans still open.
 */
import assert from 'node:assert/strict'
import { SpanStatusCode } from '@opentelemetry/api'
import type { Engine } from '@cairn/core'
import { instrumentCairn } from '@cairn/core/otel'
import { eachStore, type Env } from '../helpers/harness.ts'
import { exporter, spansNamed, traced, tracerProvider } from './otel_setup.ts'

/** A step that holds until released, and a promise that it has started. */
function heldStep() {
  const started = Promise.withResolvers<void>()
  const released = Promise.withResolvers<void>()
  return {
    started: started.promise,
    release: () => released.resolve(),
    run: async () => {
      started.resolve()
      await released.promise
      return 'done'
    },
  }
}

/** A driving engine with `slow` registered: one step, `hold`, that waits for the test. */
async function engineWithHeldStep(env: Env) {
  const held = heldStep()
  const engine = await env.engine({ drive: false })
  engine.register('slow', '1', async (ctx) => ctx.localStep('hold', held.run))
  await engine.startDriving()
  const { runId } = await engine.start('slow', null)
  await held.started
  return { engine, runId, held }
}

/** The only turn span of `workflow`, after the engine has nothing left in flight. */
async function onlyTurn(engine: Engine, workflow: string) {
  await engine.whenQuiet()
  const spans = spansNamed(`run ${workflow}`)
  assert.equal(spans.length, 1, `one turn span for ${workflow}`)
  return spans[0] as NonNullable<(typeof spans)[0]>
}

eachStore('OpenTelemetry turn outcomes', (test) => {
  test(
    'cancelled: the turn ends cancelled (status unset), the step in flight abandoned',
    traced(async (env) => {
      const { engine, runId, held } = await engineWithHeldStep(env)
      await engine.cancel(runId, { reason: 'operator' })
      held.release()
      assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'cancelled')
      const turn = await onlyTurn(engine, 'slow')
      assert.equal(turn.attributes['cairn.turn.outcome'], 'cancelled')
      assert.deepEqual(turn.status, { code: SpanStatusCode.UNSET })
      const [step, ...more] = spansNamed('step hold')
      assert.equal(more.length, 0)
      assert.equal(step?.attributes['cairn.step.outcome'], 'abandoned')
    }),
  )

  test(
    'lost: another process cancels, the step write is fenced, the turn ends lost with error status',
    traced(async (env) => {
      const { engine, runId, held } = await engineWithHeldStep(env)
      const other = await env.engine({ drive: false })
      await other.cancel(runId, { reason: 'elsewhere' })
      held.release()
      const turn = await onlyTurn(engine, 'slow')
      assert.equal(turn.attributes['cairn.turn.outcome'], 'lost')
      assert.equal(turn.status.code, SpanStatusCode.ERROR)
      assert.match(turn.status.message ?? '', /fenced/)
      assert.equal((await engine.getRun(runId))?.status, 'cancelled')
    }),
  )

  test(
    'continued: the turn ends continued (status unset); the successor has its own turn span',
    traced(async (env) => {
      const engine = await env.engine({ drive: false })
      engine.register('loop', '1', async (ctx, n: number) => (n < 1 ? ctx.continueAsNew(n + 1) : n))
      await engine.startDriving()
      const { runId } = await engine.start('loop', 0)
      await env.settle()
      await engine.whenQuiet()
      const turns = spansNamed('run loop').map((span) => [
        span.attributes['cairn.run_id'] === runId ? 'first' : 'successor',
        span.attributes['cairn.turn.outcome'],
        span.status.code,
      ])
      assert.deepEqual(turns, [
        ['first', 'continued', SpanStatusCode.UNSET],
        ['successor', 'completed', SpanStatusCode.UNSET],
      ])
    }),
  )

  test(
    'parked: the turn ends parked (status unset)',
    traced(async (env) => {
      const engine = await env.engine({ drive: false })
      engine.register('stray', '1', async (ctx) => {
        await ctx.localStep('ok', () => 1)
        await new Promise(() => {}) // not a Cairn primitive: the run is parked
      })
      await engine.startDriving()
      const { runId } = await engine.start('stray', null)
      await env.settle()
      await env.settle()
      assert.equal((await engine.getRun(runId))?.status, 'parked')
      const turn = await onlyTurn(engine, 'stray')
      assert.equal(turn.attributes['cairn.turn.outcome'], 'parked')
      assert.deepEqual(turn.status, { code: SpanStatusCode.UNSET })
    }),
  )

  test('disable() ends the spans still open: the turn as untraced, its step abandoned', async (env) => {
    exporter.reset()
    const instrumentation = instrumentCairn({ tracerProvider })
    let held: ReturnType<typeof heldStep> | undefined
    try {
      const open = await engineWithHeldStep(env)
      held = open.held
      assert.deepEqual(exporter.getFinishedSpans(), [], 'both spans are open')
      instrumentation.disable()
      const ended = exporter
        .getFinishedSpans()
        .map((span) => [
          span.name,
          span.attributes['cairn.turn.outcome'] ?? span.attributes['cairn.step.outcome'],
          span.status.code,
        ])
      assert.deepEqual(ended.sort(), [
        ['run slow', 'untraced', SpanStatusCode.UNSET],
        ['step hold', 'abandoned', SpanStatusCode.UNSET],
      ])
      held.release()
      const outcome = await open.engine.waitForRun(open.runId, { timeoutMs: 5_000 })
      assert.equal(outcome.status, 'completed', 'the run itself goes on')
      await open.engine.whenQuiet()
      assert.equal(exporter.getFinishedSpans().length, 2, 'nothing more once disabled')
    } finally {
      held?.release()
      instrumentation.disable()
    }
  })
})
