/**
 * step:completed, step:failed and step:retried carry the attempt's durationMs, measured
 * around the step function (real time, even under the tests' fake engine clock).
 */
import assert from 'node:assert/strict'
import { FatalError } from '@cairn/core'
import { eachStore } from '../helpers/harness.ts'

/** Keeps the thread busy for `ms` of real time: the attempt lasts at least that long. */
function busyFor(ms: number): void {
  const until = performance.now() + ms
  while (performance.now() < until);
}

eachStore('step durations', (test) => {
  test('each attempt outcome reports how long the attempt ran', async (env) => {
    const engine = await env.engine({ drive: false })
    let tries = 0
    engine.register('timed', 1, async (ctx) => {
      await ctx.localStep(
        'flaky',
        () => {
          busyFor(5)
          if (++tries < 2) throw new Error('first try fails')
          return 'ok'
        },
        { backoff: { delay: 10, jitter: 0 } },
      )
      await ctx.localStep('slow-fail', async () => {
        busyFor(8)
        throw new FatalError('no')
      })
    })
    const durations: Array<[string, number]> = []
    for (const name of ['step:completed', 'step:failed', 'step:retried'] as const)
      engine.on(name, (e) => durations.push([`${name}:${e.name}`, e.durationMs]))
    await engine.startDriving()
    const began = performance.now()
    const { runId } = await engine.start('timed', null)
    await env.skip(20)
    assert.equal((await engine.waitForRun(runId, { timeoutMs: 5_000 })).status, 'failed')
    assert.deepEqual(
      durations.map(([what]) => what),
      ['step:retried:flaky', 'step:completed:flaky', 'step:failed:slow-fail'],
    )
    // Lower bounds only: each attempt ran at least its busy wait; the fake clock never moved
    // during an attempt, so a duration read from it would be 0.
    const [retried, completed, failed] = durations.map(([, ms]) => ms)
    assert.ok((retried as number) >= 5, `retried attempt: ${retried} ms`)
    assert.ok((completed as number) >= 5, `completed attempt: ${completed} ms`)
    assert.ok((failed as number) >= 8, `failed attempt: ${failed} ms`)
    // And each attempt lies within the test's own window (not measured from some other origin).
    const window = performance.now() - began
    for (const [what, ms] of durations) assert.ok(ms <= window, `${what}: ${ms} > ${window} ms`)
  })
})
