import assert from 'node:assert/strict'
import { WorkflowTimeoutError, type WorkflowContext } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

const HOUR = 3_600_000

function timeoutCode(outcome: unknown): unknown {
  const { error } = outcome as { error?: { code?: unknown } }
  return error?.code
}

eachStore('execution timeout', (test) => {
  test('a waiting run is woken by its deadline and cancelled with E_WORKFLOW_TIMEOUT', async (env) => {
    const engine = await env.engine()
    let after = 0
    engine.register(
      'slow',
      1,
      async (ctx) => {
        await ctx.sleep('2h')
        after++
        return 'done'
      },
      { executionTimeoutMs: HOUR },
    )
    const { runId } = await engine.start('slow', null)
    await env.settle()
    const waiting = await engine.getRun(runId)
    assert.equal(waiting?.wakeAt?.getTime(), env.clock.now() + HOUR, 'wakes at the deadline')
    await env.skip(HOUR - 1)
    assert.equal((await engine.getRun(runId))?.status, 'waiting', 'not a millisecond early')
    await env.skip(1)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'cancelled')
    assert.equal(timeoutCode(outcome), WorkflowTimeoutError.code)
    await env.skip(2 * HOUR)
    assert.equal(after, 0, 'nothing after the deadline ran')
    assert.equal((await engine.getRun(runId))?.status, 'cancelled')
  })

  test('a step executing at the deadline has its signal aborted; the run is cancelled, no later step starts', async (env) => {
    const engine = await env.engine()
    const started = Promise.withResolvers<void>()
    let abortedWith: unknown = null
    let later = 0
    engine.register(
      'busy',
      1,
      async (ctx) => {
        await ctx.localStep('hang', ({ signal }) => {
          started.resolve()
          return new Promise((_, reject) =>
            signal.addEventListener('abort', () => {
              abortedWith = signal.reason
              reject(signal.reason as Error)
            }),
          )
        })
        await ctx.localStep('later', () => later++)
      },
      { executionTimeoutMs: 60_000 },
    )
    const { runId } = await engine.start('busy', null)
    await started.promise
    await env.skip(60_000)
    const outcome = await engine.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'cancelled')
    assert.equal(timeoutCode(outcome), 'E_WORKFLOW_TIMEOUT')
    assert.ok(abortedWith instanceof Error, 'the step saw its signal aborted')
    assert.equal(later, 0)
  })

  test('a run whose deadline passed while no engine ran is cancelled when next claimed, without running its body', async (env) => {
    const first = await env.engine({ instanceId: 'first' })
    let bodies = 0
    const body = async (ctx: WorkflowContext) => {
      bodies++
      await ctx.sleep('10m')
      return 'late'
    }
    first.register('t', 1, body, { executionTimeoutMs: HOUR })
    const { runId } = await first.start('t', null)
    await env.settle()
    await first.close()
    await env.skip(2 * HOUR)
    const second = await env.engine({ instanceId: 'second' })
    second.register('t', 1, body, { executionTimeoutMs: HOUR })
    await env.skip(1)
    const outcome = await second.waitForRun(runId, { timeoutMs: 5_000 })
    assert.equal(outcome.status, 'cancelled')
    assert.equal(timeoutCode(outcome), 'E_WORKFLOW_TIMEOUT')
    assert.equal(bodies, 1, 'only the first turn ran the body')
  })

  test('a run that finishes in time is untouched; a bad executionTimeoutMs is refused at register', async (env) => {
    const engine = await env.engine()
    engine.register('fast', 1, async (ctx) => ctx.localStep('x', () => 1), {
      executionTimeoutMs: 1_000,
    })
    const { runId } = await engine.start('fast', null)
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 5_000 }), {
      runId,
      status: 'completed',
      output: 1,
    })
    await env.skip(5_000)
    assert.equal((await engine.getRun(runId))?.status, 'completed')
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      assert.throws(
        () => engine.register(`bad-${String(bad)}`, 1, async () => 1, { executionTimeoutMs: bad }),
        /executionTimeoutMs/,
      )
    }
  })
})
