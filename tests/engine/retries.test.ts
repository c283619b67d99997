import assert from 'node:assert/strict'
import { FatalError, RetryableError } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

eachStore('retries and failures', (test) => {
  test('a failing step is retried with back-off and its attempts are counted', async (env) => {
    const engine = await env.engine()
    let attempts = 0
    engine.register('flaky', 1, async (ctx) =>
      ctx.localStep(
        'call',
        ({ attempt }) => {
          attempts++
          if (attempt < 3) throw new Error(`attempt ${attempt} failed`)
          return attempt
        },
        { retries: 5, backoff: { type: 'fixed', delay: '2s', jitter: 0 } },
      ),
    )
    const { runId } = await engine.start('flaky', null)
    await env.skip(1_999)
    assert.equal(attempts, 1, 'not retried before the back-off')
    await env.skip(1)
    await env.skip(2_000)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 3,
    })
    const [step] = await engine.getSteps(runId)
    assert.equal(step?.attempts, 3)
  })

  test('FatalError is never retried; the failed run records name, message, stack, code and cause', async (env) => {
    const engine = await env.engine()
    let attempts = 0
    engine.register('fatal', 1, async (ctx) => {
      await ctx.localStep('charge', () => {
        attempts++
        throw new FatalError('card declined', { cause: new TypeError('issuer said no') })
      })
    })
    const { runId } = await engine.start('fatal', null)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(attempts, 1)
    assert.equal(outcome.status, 'failed')
    if (outcome.status !== 'failed') return
    assert.equal(outcome.error.name, 'FatalError')
    assert.equal(outcome.error.message, 'card declined')
    assert.equal(outcome.error.code, 'E_FATAL')
    assert.match(outcome.error.stack ?? '', /card declined/)
    assert.equal((outcome.error.cause as { name: string }).name, 'TypeError')
    assert.equal((outcome.error.cause as { message: string }).message, 'issuer said no')
  })

  test('exhausted retries fail the step; the workflow can catch the failure', async (env) => {
    const engine = await env.engine()
    engine.register('catch', 1, async (ctx) => {
      try {
        await ctx.localStep(
          'always',
          () => {
            throw new Error('nope')
          },
          { retries: 2, backoff: { delay: 10, jitter: 0 } },
        )
      } catch (error) {
        return `caught: ${(error as Error).message}`
      }
    })
    const { runId } = await engine.start('catch', null)
    await env.skip(10)
    await env.skip(20)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'caught: nope',
    })
    const [step] = await engine.getSteps(runId)
    assert.equal(step?.attempts, 3)
    assert.equal(step?.status, 'failed')
  })

  test('RetryableError.retryAfterMs sets a floor under the back-off; a long back-off suspends the run', async (env) => {
    const engine = await env.engine({ holdTimersUpToMs: 1_000 })
    let attempts = 0
    engine.register('later', 1, async (ctx) =>
      ctx.localStep(
        'rate-limited',
        () => {
          if (++attempts === 1) throw new RetryableError('slow down', { retryAfterMs: 600_000 })
          return 'ok'
        },
        { backoff: { delay: 10, jitter: 0 } },
      ),
    )
    const { runId } = await engine.start('later', null)
    await env.settle()
    await env.settle()
    const waiting = await engine.getRun(runId)
    assert.equal(waiting?.status, 'waiting', 'a 10-minute back-off does not hold the lease')
    assert.equal(waiting?.wakeAt?.getTime(), env.clock.now() + 600_000)
    assert.match(waiting?.waitingOn ?? '', /retry of step "rate-limited"/)
    await env.skip(599_999)
    assert.equal(attempts, 1)
    await env.skip(1)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'ok',
    })
    assert.equal(attempts, 2)
  })

  test('timeoutMs aborts the attempt signal and counts as a failure', async (env) => {
    const engine = await env.engine()
    let aborted = 0
    engine.register('timeout', 1, async (ctx) =>
      ctx.localStep(
        'stuck',
        ({ signal, attempt }) => {
          if (attempt > 1) return 'second try'
          return new Promise((_, reject) =>
            signal.addEventListener('abort', () => (aborted++, reject(signal.reason))),
          )
        },
        { timeoutMs: 20, backoff: { delay: 5, jitter: 0 } },
      ),
    )
    const { runId } = await engine.start('timeout', null)
    await new Promise((r) => setTimeout(r, 60))
    await env.skip(5)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 'second try',
    })
    assert.equal(aborted, 1)
  })
})
