/**
 * @cairn/core/otel: one span per run execution turn, one per step attempt (child of its
 * turn), W3C trace context injected inside a step names the step's span, errors set error
 * status, and disable() stops it all.
 */
import assert from 'node:assert/strict'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { SpanStatusCode } from '@opentelemetry/api'
import { FatalError } from '@cairn/core'
import { instrumentCairn } from '@cairn/core/otel'
import { tracing } from '../../packages/core/src/execution/tracing_hooks.ts'
import { eachStore } from '../helpers/harness.ts'
import { exporter, spansNamed, traceparent, traced, tracerProvider } from './otel_setup.ts'

eachStore('OpenTelemetry tracing', (test) => {
  test(
    'a run: a turn span, a span per step attempt under it, traceparent names the step',
    traced(async (env) => {
      const engine = await env.engine({ drive: false })
      const seen: Record<string, string | undefined> = {}
      let tries = 0
      engine.register('checkout', '1', async (ctx) => {
        await ctx.localStep('reserve', () => (seen.reserve = traceparent()))
        await ctx.localStep(
          'charge',
          async () => {
            await nextTurn() // an await inside the step keeps the step's context
            seen[`charge#${++tries}`] = traceparent()
            if (tries === 1) throw new Error('declined, try again')
            return 'ok'
          },
          { backoff: { delay: 10, jitter: 0 } },
        )
        await ctx.localStep('notify', () => (seen.notify = traceparent()), { timeoutMs: 1_000 })
        return 'done'
      })
      await engine.startDriving()
      const { runId } = await engine.start('checkout', null)
      // The retry is due 10 ms (fake) after the first attempt fails, whenever that is.
      for (let i = 0; i < 10 && (await engine.getRun(runId))?.status !== 'completed'; i++)
        await env.clock.advance(20)
      assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')

      const [turn, ...extra] = spansNamed('run checkout')
      assert.ok(turn && extra.length === 0, 'one turn span')
      assert.equal(turn.parentSpanContext, undefined, 'a turn is a root span')
      assert.deepEqual(turn.attributes, {
        'cairn.workflow': 'checkout',
        'cairn.workflow.version': '1',
        'cairn.run_id': runId,
        'cairn.run.epoch': 1,
        'cairn.turn.outcome': 'completed',
      })
      const steps = exporter.getFinishedSpans().filter((s) => s.name.startsWith('step '))
      assert.deepEqual(
        steps
          .map((s) => [
            s.name,
            s.attributes['cairn.step.seq'],
            s.attributes['cairn.step.attempt'],
            s.attributes['cairn.step.outcome'],
            s.status.code,
          ])
          .sort(),
        [
          ['step charge', 1, 1, 'retried', SpanStatusCode.ERROR],
          ['step charge', 1, 2, 'completed', SpanStatusCode.UNSET],
          ['step notify', 2, 1, 'completed', SpanStatusCode.UNSET],
          ['step reserve', 0, 1, 'completed', SpanStatusCode.UNSET],
        ],
      )
      for (const step of steps) {
        assert.equal(step.spanContext().traceId, turn.spanContext().traceId, `${step.name} trace`)
        assert.equal(
          step.parentSpanContext?.spanId,
          turn.spanContext().spanId,
          `${step.name} parent`,
        )
        assert.equal(step.attributes['cairn.run_id'], runId)
        assert.equal(step.attributes['cairn.workflow'], 'checkout')
      }
      const spanOf = (name: string, attempt: number) =>
        steps.find((s) => s.name === name && s.attributes['cairn.step.attempt'] === attempt)
      const expected = (name: string, attempt = 1) => {
        const ids = spanOf(name, attempt)?.spanContext()
        return `00-${ids?.traceId}-${ids?.spanId}-01`
      }
      assert.deepEqual(seen, {
        reserve: expected('step reserve'),
        'charge#1': expected('step charge', 1),
        'charge#2': expected('step charge', 2),
        notify: expected('step notify'),
      })
      assert.equal(spanOf('step charge', 1)?.status.message, 'declined, try again')
    }),
  )

  test(
    'a run that suspends and resumes: one span per turn, linked by the run id',
    traced(async (env) => {
      const engine = await env.engine({ drive: false })
      engine.register('nap', '1', async (ctx) => {
        await ctx.localStep('before', () => 1)
        await ctx.sleep(3_600_000) // an hour: far beyond timers held in-process, so it suspends
        await ctx.localStep('after', () => 2)
      })
      await engine.startDriving()
      const { runId } = await engine.start('nap', null)
      await env.clock.advance(3_600_001)
      assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
      const turns = spansNamed('run nap')
      assert.deepEqual(
        turns.map((t) => [
          t.attributes['cairn.run_id'],
          t.attributes['cairn.run.epoch'],
          t.attributes['cairn.turn.outcome'],
        ]),
        [
          [runId, 1, 'suspended'],
          [runId, 2, 'completed'],
        ],
      )
      const [first, second] = turns
      assert.notEqual(
        first?.spanContext().traceId,
        second?.spanContext().traceId,
        'a trace per turn',
      )
      // The replay of `before` in the second turn runs no attempt: no second span for it.
      assert.deepEqual(
        exporter
          .getFinishedSpans()
          .filter((s) => s.name.startsWith('step '))
          .map((s) => [s.name, s.parentSpanContext?.spanId]),
        [
          ['step before', first?.spanContext().spanId],
          ['step after', second?.spanContext().spanId],
        ],
      )
    }),
  )

  test(
    'a failed run: error status on the failed step and on the turn',
    traced(async (env) => {
      const engine = await env.engine({ drive: false })
      engine.register('billing', '1', async (ctx) => {
        await ctx.localStep('invoice', () => {
          throw new FatalError('no customer')
        })
      })
      await engine.startDriving()
      const { runId } = await engine.start('billing', null)
      assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
      const [turn] = spansNamed('run billing')
      const [step] = spansNamed('step invoice')
      assert.deepEqual(turn?.status, { code: SpanStatusCode.ERROR, message: 'no customer' })
      assert.equal(turn?.attributes['cairn.turn.outcome'], 'failed')
      assert.deepEqual(step?.status, { code: SpanStatusCode.ERROR, message: 'no customer' })
      assert.equal(step?.attributes['cairn.step.outcome'], 'failed')
      assert.deepEqual(
        step?.events.map((e) => [e.name, e.attributes?.['exception.message']]),
        [['exception', 'no customer']],
      )
    }),
  )

  test('one instrumentation at a time; disable() uninstalls and stops new spans', async (env) => {
    exporter.reset()
    const instrumentation = instrumentCairn({ tracerProvider })
    try {
      assert.throws(() => instrumentCairn({ tracerProvider }), { code: 'E_INVALID_ARGUMENT' })
      const engine = await env.engine({ drive: false })
      engine.register('quiet', '1', async (ctx) => ctx.localStep('s', () => traceparent()))
      await engine.startDriving()
      instrumentation.disable()
      instrumentation.disable() // idempotent
      assert.equal(tracing.current, null)
      const { runId } = await engine.start('quiet', null)
      const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
      assert.deepEqual(outcome, { runId, status: 'completed', output: undefined })
      assert.deepEqual(exporter.getFinishedSpans(), [])
    } finally {
      instrumentation.disable()
    }
  })
})
