/**
 * A signal nobody waits for costs O(1): it is stored and counted, and the waiting run is not
 * woken to replay and find nothing to do (which made 10,000 such signals cost 10,000 replays,
 * each reading the whole inbox). Measured as the store counts it: the run's `turns` (claims)
 * stay where they were while the noise lands; the awaited signal still wakes it at once; the
 * noise is kept, in order, for a later wait; a compensating cancel still reaches it.
 */
import assert from 'node:assert/strict'
import { eachStore } from '../helpers/harness.ts'

const NOISE = 200

eachStore('signals a run does not wait for', (test) => {
  test('are stored without waking the run; the awaited one wakes it; later waits get them', async (env) => {
    const engine = await env.engine()
    engine.register('patient', 1, async (ctx) => {
      const go = await ctx.waitForSignal<string>('go')
      const first = await ctx.waitForSignal<number>('noise')
      const second = await ctx.waitForSignal<number>('noise')
      return { go, first, second }
    })
    const { runId } = await engine.start('patient', null)
    await env.settle()
    const before = await env.handle.store.getRun(runId)
    assert.equal(before?.status, 'waiting')
    for (let i = 0; i < NOISE; i++) await engine.signal({ runId, name: 'noise' }, i)
    await env.settle()
    const during = await env.handle.store.getRun(runId)
    assert.equal(during?.status, 'waiting')
    assert.equal(during?.inboxSeq, NOISE, 'every signal was stored')
    assert.equal(during?.turns, before?.turns, 'no signal woke the run')
    await engine.signal({ runId, name: 'go' }, 'now')
    assert.deepEqual(await engine.waitForRun(runId, { timeoutMs: 10_000 }), {
      runId,
      status: 'completed',
      output: { go: 'now', first: 0, second: 1 },
    })
    const after = await env.handle.store.getRun(runId)
    assert.equal(after?.turns, (before?.turns ?? 0) + 1, 'one more turn: the awaited signal')
  })

  test('a compensating cancel still reaches a run waiting on something else', async (env) => {
    const engine = await env.engine()
    let undone = 0
    engine.register('undoable', 1, async (ctx) => {
      await ctx.localStep('charge', () => 'charged', { compensate: () => void undone++ })
      return ctx.waitForSignal('go')
    })
    const { runId } = await engine.start('undoable', null)
    await env.settle()
    await engine.signal({ runId, name: 'noise' }, 1)
    await engine.cancel(runId, { compensate: true })
    const outcome = await engine.waitForRun(runId, { timeoutMs: 10_000 })
    assert.equal(outcome.status, 'cancelled')
    assert.equal(undone, 1, 'the compensation ran')
  })
})
