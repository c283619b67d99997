/**
 * Step logs as span events (docs/step-logs.md, docs/tracing.md): each line a step attempt
 * logs is an event `log` of that attempt's span, with its level and message, in order; a
 * retried attempt's lines are events of its own span.
 */
import assert from 'node:assert/strict'
import { eachStore } from '../helpers/harness.ts'
import { exporter, traced } from './otel_setup.ts'

eachStore('OpenTelemetry step log events', (test) => {
  test(
    'each line is a log event of its attempt’s span',
    traced(async (env) => {
      const engine = await env.engine()
      engine.register('import', '1', async (ctx) =>
        ctx.localStep(
          'load',
          (step) => {
            step.log.info(`reading, attempt ${step.attempt}`)
            if (step.attempt === 1) {
              step.log.error('disk hiccup')
              throw new Error('retry me')
            }
            step.log.warn('slow disk', { ms: 900 })
            return 'loaded'
          },
          { backoff: { delay: 10, jitter: 0 } },
        ),
      )
      const { runId } = await engine.start('import', null)
      for (let i = 0; i < 10 && (await engine.getRun(runId))?.status !== 'completed'; i++)
        await env.clock.advance(20)
      assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'completed')
      const spans = exporter
        .getFinishedSpans()
        .filter((span) => span.name === 'step load')
        .sort(
          (a, b) =>
            Number(a.attributes['cairn.step.attempt']) - Number(b.attributes['cairn.step.attempt']),
        )
      assert.deepEqual(
        spans.map((span) =>
          // A failed attempt's span also holds its `exception` event.
          span.events
            .filter((event) => event.name === 'log')
            .map((event) => [
              event.name,
              event.attributes?.['cairn.log.level'],
              event.attributes?.['cairn.log.message'],
            ]),
        ),
        [
          [
            ['log', 'info', 'reading, attempt 1'],
            ['log', 'error', 'disk hiccup'],
          ],
          [
            ['log', 'info', 'reading, attempt 2'],
            ['log', 'warn', 'slow disk'],
          ],
        ],
      )
    }),
  )
})
